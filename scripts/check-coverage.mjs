#!/usr/bin/env node
// Compares the operations of openapi/v1.yaml with the checked-in list of the interface document's 126
// operations (scripts/seed-operations.txt) and of Quire's additions; fails on any missing or misnamed one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleSpec, repoRoot } from './lib/generate.mjs';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function readList(file) {
  return readFileSync(join(repoRoot, 'scripts', file), 'utf8').split('\n')
    .map((line) => line.trim()).filter((line) => line && !line.startsWith('#'))
    .map((line) => { const [method, path, operationId] = line.split(/\s+/); return { method: method.toLowerCase(), path, operationId }; });
}

const spec = bundleSpec();
const inSpec = new Map();
for (const [path, item] of Object.entries(spec.paths ?? {})) {
  for (const method of METHODS) if (item[method]) inSpec.set(`${method} ${path}`, item[method]);
}

const problems = [];
const check = (list, label) => {
  let present = 0;
  for (const op of list) {
    const found = inSpec.get(`${op.method} ${op.path}`);
    if (!found) problems.push(`${label}: missing ${op.method.toUpperCase()} ${op.path} (${op.operationId})`);
    else if (found.operationId !== op.operationId) problems.push(`${label}: ${op.method.toUpperCase()} ${op.path} has operationId ${found.operationId}, expected ${op.operationId}`);
    else present += 1;
  }
  return present;
};
const seed = readList('seed-operations.txt');
const additions = readList('addition-operations.txt');
const seedPresent = check(seed, 'interface document');
const additionsPresent = check(additions, 'addition');
const listed = new Set([...seed, ...additions].map((op) => `${op.method} ${op.path}`));
for (const key of inSpec.keys()) if (!listed.has(key)) problems.push(`unlisted operation in the spec: ${key.toUpperCase()} (add it to scripts/addition-operations.txt)`);

console.log(`interface document operations: ${seedPresent}/${seed.length} present; additions: ${additionsPresent}/${additions.length} present; spec total: ${inSpec.size}`);
if (problems.length) {
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
