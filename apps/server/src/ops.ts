import { pathToFileURL } from 'node:url';
import { implementedOperations } from './http/handlers/index.js';
import { listOperations, loadBundledContract, type OperationInfo } from './http/openapi/contract.js';

/**
 * `npm run ops`: which operations of the contract have a handler, by tag (an operation under several tags
 * is listed under its first, family tag). `--json` prints the same as one JSON object.
 */
export interface OperationsReport {
  total: number;
  implemented: number;
  tags: Array<{ tag: string; implemented: string[]; missing: string[] }>;
}

export function operationsReport(operations: OperationInfo[], implemented: ReadonlySet<string>): OperationsReport {
  const byTag = new Map<string, { implemented: string[]; missing: string[] }>();
  for (const operation of operations) {
    const tag = operation.tags[0] ?? '(untagged)';
    const entry = byTag.get(tag) ?? { implemented: [], missing: [] };
    (implemented.has(operation.operationId) ? entry.implemented : entry.missing).push(operation.operationId);
    byTag.set(tag, entry);
  }
  return {
    total: operations.length,
    implemented: operations.filter((operation) => implemented.has(operation.operationId)).length,
    tags: [...byTag.entries()].map(([tag, entry]) => ({ tag, ...entry })),
  };
}

export function formatReport(report: OperationsReport): string {
  const lines = [`${report.implemented} of ${report.total} operations implemented`];
  for (const { tag, implemented, missing } of report.tags) {
    lines.push('', `${tag}: ${implemented.length}/${implemented.length + missing.length}`);
    for (const operationId of implemented) lines.push(`  [x] ${operationId}`);
    for (const operationId of missing) lines.push(`  [ ] ${operationId}`);
  }
  return `${lines.join('\n')}\n`;
}

function main(): void {
  const operations = listOperations(loadBundledContract());
  // The operations the server answers, as handlers/index.ts lists them (its test checks them against the groups).
  const report = operationsReport(operations, new Set(implementedOperations()));
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
