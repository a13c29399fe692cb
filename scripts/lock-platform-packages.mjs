#!/usr/bin/env node
// The npm registry this project is developed against serves only the Linux builds of turbo, so `npm install`
// leaves the other platforms' optional packages out of package-lock.json and `npm ci` then refuses the lock
// as out of sync. This records those optional packages (never installed on Linux, so never fetched here)
// so the lock stays valid everywhere. Run it after any `npm install` that touches turbo.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './lib/paths.mjs';

const lockPath = join(repoRoot, 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const turbo = lock.packages['node_modules/turbo'];
const platforms = { darwin: ['darwin'], windows: ['win32'], linux: ['android', 'linux'] };
let added = 0;
for (const name of Object.keys(turbo.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [, platform, arch] = /^@turbo\/(\w+)-(\w+)$/.exec(name) ?? [];
  lock.packages[key] = {
    version: turbo.optionalDependencies[name],
    cpu: [arch === '64' ? 'x64' : arch],
    dev: true,
    license: 'MIT',
    optional: true,
    os: platforms[platform] ?? [platform],
  };
  added += 1;
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => a.localeCompare(b, 'en')));
writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`recorded ${added} platform package(s) of turbo in package-lock.json`);
