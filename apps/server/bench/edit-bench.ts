import { TreeWriter, WorkingTree } from '#server/content/index.js';
import { migrateToLatest } from '#server/db/migrate.js';
import { newId, nowIso } from '#server/ids.js';
import { updateChangeRequestContent } from '#server/services/change-request-content.js';
import { createChangeRequest } from '#server/services/change-request-service.js';
import { createSpace } from '#server/services/space-service.js';
import { contentObjectTotals, putObjects, SqlObjectReader } from '#server/stores/content-object-store.js';
import { findRevisionById, insertRevision } from '#server/stores/revision-store.js';
import { setSpaceMainRevision } from '#server/stores/space-store.js';
import { openBenchDatabase } from './bench-database.js';
import { bootstrapBench } from './bench-owner.js';
import { positiveIntegerOption, printReport, runIfScript, stringOption } from './report.js';

/*
 * What one page edit costs in a large space: `runEditBench()` builds a space of 10,000 pages (100 top-level
 * pages with 99 children each), opens a change request on it, and edits one page through the change request
 * service, as `updateChangeRequestContent` does for an API call. It reports the time of each edit and what
 * it wrote: the sizes of the new content objects plus the revision row. Because trees share unchanged
 * subtrees by hash, an edit writes the page, its parent, the root and the markdown, whatever the size of
 * the space. Standalone: `node bench-dist/edit-bench.js [--sections n] [--per-section n] [--edits n]
 * [--database-url url] [--json]`.
 */

export interface EditBenchOptions {
  /** Top-level pages (default 100). */
  sections?: number;
  /** Pages per section, the section's own page included (default 100): sections x perSection pages in all. */
  perSection?: number;
  /** Edits measured, each of another page (default 5); the first one loads the tree, the others find it cached. */
  edits?: number;
  /** `sqlite:<file>` or `postgres://...` (benchmarked in a schema of its own, dropped afterwards); default a temporary SQLite file. */
  databaseUrl?: string;
  log?: (line: string) => void;
}

export interface EditMeasure {
  ms: number;
  /** New content objects written (page objects, markdown blobs, tree root). */
  objects: number;
  /** Their stored sizes plus the revision row. */
  bytesWritten: number;
}

export interface EditBenchReport {
  dialect: 'sqlite' | 'postgres';
  pages: number;
  /** Building and storing the space's tree (not part of an edit). */
  buildMs: number;
  /** Bytes of content objects the whole space takes. */
  spaceBytes: number;
  edits: EditMeasure[];
  /** Median over the edits after the first. */
  warmMedianMs: number;
  /** Median bytes written per edit. */
  medianBytesWritten: number;
}

function pageMarkdown(section: number, page: number, version: number): string {
  const lines = [`# Section ${section}, page ${page}`, ''];
  for (let i = 0; i < 12; i++) lines.push(`Paragraph ${i} of page ${section}.${page} (version ${version}): some text about the topic of this page, long enough to look like documentation.`, '');
  return lines.join('\n');
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function runEditBench(options: EditBenchOptions = {}): Promise<EditBenchReport> {
  const sections = options.sections ?? 100;
  const perSection = options.perSection ?? 100;
  const editCount = options.edits ?? 5;
  const log = options.log ?? (() => {});
  const database = await openBenchDatabase('edit', options.databaseUrl);
  try {
    const { handle } = database;
    await migrateToLatest(handle);
    const { context, caller, organizationId } = await bootstrapBench(handle, 'Edit bench');
    const user = caller.user;
    const { space } = await createSpace(context, caller, organizationId, { title: 'Large space' });

    log(`building ${sections * perSection} pages`);
    let started = performance.now();
    const writer = new TreeWriter(new SqlObjectReader(handle.db));
    const tree = WorkingTree.empty();
    const leaves: string[] = [];
    for (let s = 0; s < sections; s++) {
      const section = tree.insertPage({ id: newId(), title: `Section ${s}`, content: writer.putMarkdown(pageMarkdown(s, 0, 0)) }, { into: null });
      for (let p = 1; p < perSection; p++) {
        const page = tree.insertPage({ id: newId(), title: `Page ${s}.${p}`, content: writer.putMarkdown(pageMarkdown(s, p, 0)) }, { into: section.id });
        leaves.push(page.id);
      }
    }
    const root = tree.commit(writer);
    const revisionId = newId();
    await handle.db.transaction().execute(async (trx) => {
      await putObjects(trx, writer.collect(root));
      const now = nowIso();
      await insertRevision(trx, { id: revisionId, space_id: space.id, type: 'edits', parents: JSON.stringify([space.revision_id]), root, created_at: now, created_by: user.id, git: null, change_request_id: null });
      await setSpaceMainRevision(trx, space.id, revisionId, now);
    });
    const buildMs = Math.round(performance.now() - started);
    const spaceBytes = (await contentObjectTotals(handle.db)).bytes;
    log(`built in ${buildMs} ms (${spaceBytes} bytes of content objects)`);

    const { changeRequest } = await createChangeRequest(context, caller, space.id, { subject: 'One page' });
    const edits: EditMeasure[] = [];
    for (let i = 0; i < editCount; i++) {
      const page = leaves[Math.floor(((i + 0.5) * leaves.length) / Math.max(editCount, 1)) % Math.max(leaves.length, 1)];
      if (page === undefined) break;
      const before = await contentObjectTotals(handle.db);
      started = performance.now();
      const outcome = await updateChangeRequestContent(context, caller, space.id, changeRequest.id, [
        { operation: 'update_page', page, document: { markdown: pageMarkdown(-1, i, i + 1) } },
      ]);
      const ms = performance.now() - started;
      const after = await contentObjectTotals(handle.db);
      const revision = await findRevisionById(handle.db, outcome.view.changeRequest.revision_id);
      if (!revision) throw new Error('the edit made no revision');
      const revisionBytes = Buffer.byteLength(JSON.stringify(revision), 'utf8');
      edits.push({ ms: Math.round(ms * 10) / 10, objects: after.objects - before.objects, bytesWritten: after.bytes - before.bytes + revisionBytes });
      log(`edit ${i + 1}: ${edits[i]!.ms} ms, ${edits[i]!.objects} objects, ${edits[i]!.bytesWritten} bytes`);
    }
    return {
      dialect: handle.dialect,
      pages: sections * perSection,
      buildMs,
      spaceBytes,
      edits,
      warmMedianMs: median(edits.slice(1).map((edit) => edit.ms)),
      medianBytesWritten: median(edits.map((edit) => edit.bytesWritten)),
    };
  } finally {
    await database.cleanup();
  }
}

export function formatEditBenchReport(report: EditBenchReport): string {
  const lines = [
    `edit bench (${report.dialect}): one-page edit of a change request in a ${report.pages}-page space`,
    `  space built in ${report.buildMs} ms, ${report.spaceBytes} bytes of content objects`,
  ];
  report.edits.forEach((edit, i) => lines.push(`  edit ${i + 1}${i === 0 ? ' (cold)' : ''}: ${edit.ms} ms, ${edit.objects} new objects, ${edit.bytesWritten} bytes written`));
  lines.push(`  warm median ${report.warmMedianMs} ms, median ${report.medianBytesWritten} bytes written per edit`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const sections = positiveIntegerOption('sections');
  const perSection = positiveIntegerOption('per-section');
  const edits = positiveIntegerOption('edits');
  const databaseUrl = stringOption('database-url');
  const report = await runEditBench({
    ...(sections ? { sections } : {}),
    ...(perSection ? { perSection } : {}),
    ...(edits ? { edits } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    log: (line) => process.stderr.write(`edit bench: ${line}\n`),
  });
  printReport(report, formatEditBenchReport);
}

runIfScript(import.meta.url, 'edit bench', main);
