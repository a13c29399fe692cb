// The checked-in lists of the contract's operations (scripts/*-operations.txt: `METHOD PATH operationId` per
// line, `#` comments). One reader for the coverage check (scripts/check-coverage.mjs) and the server's placement
// gate (apps/server/test/gates/placement.test.ts), so that both hold the same facts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.mjs';

/** The interface document's operations, Quire's additions, and the public API's further operations of its families. */
export const OPERATION_LISTS = {
  seed: 'seed-operations.txt',
  additions: 'addition-operations.txt',
  public: 'public-operations.txt',
};

export function readOperationList(file) {
  return readFileSync(join(repoRoot, 'scripts', file), 'utf8').split('\n')
    .map((line) => line.trim()).filter((line) => line && !line.startsWith('#'))
    .map((line) => { const [method, path, operationId] = line.split(/\s+/); return { method: method.toLowerCase(), path, operationId }; });
}
