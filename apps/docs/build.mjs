#!/usr/bin/env node
// Renders the API reference into one static HTML file that works offline: the Redoc renderer is inlined
// (`--inlineBundle`) instead of loaded from a CDN, and the theme uses system fonts only.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');
const spec = createRequire(import.meta.url).resolve('@quire/api-types/openapi.yaml');
const out = join(here, 'dist', 'index.html');

mkdirSync(dirname(out), { recursive: true });
execFileSync(join(repoRoot, 'node_modules', '.bin', 'redocly'), [
  'build-docs', spec,
  '--output', out,
  '--inlineBundle',
  '--title', 'Quire Management API reference',
  '--config', join(here, 'redocly.docs.yaml'),
], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });

// The renderer's attribution badge loads Redocly's logo from their CDN at run time. Keep the attribution but
// serve the logo from the page itself, so the reference opens with no network at all.
const attributionLogo = (text) => `data:image/svg+xml,${encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" width="${text.length * 8 + 8}" height="16"><text x="4" y="12" font-family="system-ui,sans-serif" font-size="12" font-weight="600" fill="#5d5d6b">${text}</text></svg>`)}`;
const remoteAssets = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': attributionLogo('Redocly'),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': attributionLogo('R'),
};
let html = readFileSync(out, 'utf8');
for (const [remote, local] of Object.entries(remoteAssets)) html = html.split(remote).join(local);
writeFileSync(out, html);
console.log(`API reference written to ${out}`);
