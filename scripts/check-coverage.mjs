#!/usr/bin/env node
// Compares the operations of openapi/v1.yaml with the checked-in lists of the interface document's 126
// operations (scripts/seed-operations.txt), the public API's further operations of the same families
// (scripts/public-operations.txt) and Quire's additions; fails on any missing or misnamed one.
// The lists are read through lib/operation-lists.mjs, as the server's placement gate reads them: that gate
// holds public-operations.txt to the public API's names and addresses, and lists the public operations of
// Quire's families that no list here has yet (apps/server/test/gates/placement-allow-list.ts).
import { bundleSpec } from './lib/generate.mjs';
import { OPERATION_LISTS, readOperationList } from './lib/operation-lists.mjs';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

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
const seed = readOperationList(OPERATION_LISTS.seed);
const additions = readOperationList(OPERATION_LISTS.additions);
const publicFamilies = readOperationList(OPERATION_LISTS.public);
const seedPresent = check(seed, 'interface document');
const additionsPresent = check(additions, 'addition');
const publicPresent = check(publicFamilies, 'public family');
const listed = new Set([...seed, ...additions, ...publicFamilies].map((op) => `${op.method} ${op.path}`));
for (const key of inSpec.keys()) if (!listed.has(key)) problems.push(`unlisted operation in the spec: ${key.toUpperCase()} (add it to scripts/public-operations.txt or scripts/addition-operations.txt)`);

console.log(`interface document operations: ${seedPresent}/${seed.length} present; additions: ${additionsPresent}/${additions.length} present; other public operations: ${publicPresent}/${publicFamilies.length} present; spec total: ${inSpec.size}`);
if (problems.length) {
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
