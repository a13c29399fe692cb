import { TreeWriter, WorkingTree } from '#server/content/index.js';
import { migrateToLatest } from '#server/db/migrate.js';
import { newId, nowIso } from '#server/ids.js';
import { updateChangeRequestContent } from '#server/services/change-request-content.js';
import { createChangeRequest } from '#server/services/change-request-service.js';
import { contentReader } from '#server/services/revision-content.js';
import { createSpace } from '#server/services/space-service.js';
import type { CachingObjectReader } from '#server/content/index.js';
import { contentObjectTotals, putObjects, SqlObjectReader } from '#server/stores/content-object-store.js';
import { findRevisionById, insertRevision } from '#server/stores/revision-store.js';
import { updateChangeRequestRow } from '#server/stores/change-request-store.js';
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
 * the space. It also counts the tree objects each edit reads (through the process's decoded-object cache,
 * hits and misses alike): a count the machine's load does not move, which says whether an edit walked the
 * space's tree (10,000 objects) or only what it changed (services/working-trees.ts). Goal (issue 27): a warm
 * median under 15 ms. Standalone: `node bench-dist/edit-bench.js [--sections n] [--per-section n] [--edits n] [--edits-after-elsewhere n]
 * [--database-url url] [--json]`.
 */

export interface EditBenchOptions {
  /** Top-level pages (default 100). */
  sections?: number;
  /** Pages per section, the section's own page included (default 100): sections x perSection pages in all. */
  perSection?: number;
  /** Edits measured, each of another page (default 5); the first one loads the tree, the others find it cached. */
  edits?: number;
  /** Edits measured after an edit made elsewhere (default 3). */
  editsAfterElsewhere?: number;
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
  /** Tree objects the edit read (decoded-object cache hits and misses). */
  objectsRead: number;
  /**
   * CPU time of this process during the edit (user and system, every thread): less moved by the load of a
   * shared machine than `ms`, which also counts the time spent waiting for a core. On PostgreSQL the
   * database's own work is not in it.
   */
  cpuMs: number;
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
  /** Median of the tree objects read by the edits after the first. */
  warmMedianObjectsRead: number;
  /** Median CPU time of the edits after the first. */
  warmMedianCpuMs: number;
  /**
   * Edits of the request made right after an edit this process did not make (as another API process would):
   * the tree kept from this process's last edit is brought up to date, reading what changed.
   */
  afterEditsElsewhere: EditMeasure[];
  /** The goal of issue 27: a warm median under this many milliseconds. */
  goalMs: number;
}

export const EDIT_GOAL_MS = 15;

function pageMarkdown(section: number, page: number, version: number): string {
  const lines = [`# Section ${section}, page ${page}`, ''];
  for (let i = 0; i < 12; i++) lines.push(`Paragraph ${i} of page ${section}.${page} (version ${version}): some text about the topic of this page, long enough to look like documentation.`, '');
  return lines.join('\n');
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
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
  const elsewhereCount = options.editsAfterElsewhere ?? 3;
  const log = options.log ?? (() => {});
  const database = await openBenchDatabase('edit', options.databaseUrl);
  try {
    const { handle } = database;
    await migrateToLatest(handle);
    const { context, caller, organizationId } = await bootstrapBench(handle, 'Edit bench');
    const user = caller.user;
    const { space } = await createSpace(context, caller, organizationId, { title: 'Large space' });

    log(`building ${sections * perSection} pages`);
    const started = performance.now();
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
    // The cache the edits read the tree through, outside their transaction (revision-content.ts).
    const objectCache = contentReader(context.db) as CachingObjectReader;
    const objectReads = () => objectCache.hits + objectCache.misses;
    // Each edit states the revision it was made against, as an editor does (the `revision` precondition).
    let revision = changeRequest.revision_id;
    const measuredEdit = async (page: string, markdown: string): Promise<EditMeasure> => {
      const before = await contentObjectTotals(handle.db);
      const readsBefore = objectReads();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const outcome = await updateChangeRequestContent(context, caller, space.id, changeRequest.id, [{ operation: 'update_page', page, document: { markdown } }], revision);
      const ms = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      const objectsRead = objectReads() - readsBefore;
      revision = outcome.view.changeRequest.revision_id;
      const after = await contentObjectTotals(handle.db);
      const written = await findRevisionById(handle.db, revision);
      if (!written) throw new Error('the edit made no revision');
      const revisionBytes = Buffer.byteLength(JSON.stringify(written), 'utf8');
      return { ms: round(ms), objects: after.objects - before.objects, bytesWritten: after.bytes - before.bytes + revisionBytes, objectsRead, cpuMs: round((cpu.user + cpu.system) / 1000) };
    };
    const pageAt = (i: number, count: number) => leaves[Math.floor(((i + 0.5) * leaves.length) / Math.max(count, 1)) % Math.max(leaves.length, 1)];
    const edits: EditMeasure[] = [];
    for (let i = 0; i < editCount; i++) {
      const page = pageAt(i, editCount);
      if (page === undefined) break;
      edits.push(await measuredEdit(page, pageMarkdown(-1, i, i + 1)));
      log(`edit ${i + 1}: ${edits[i]!.ms} ms, ${edits[i]!.objects} objects, ${edits[i]!.bytesWritten} bytes, ${edits[i]!.objectsRead} objects read`);
    }

    // Edits of a request that moved on since this process's last edit of it, as when another API process
    // made the edit in between: that edit is made here with a tree of its own, written through the stores.
    const elsewhere = await WorkingTree.load(new SqlObjectReader(handle.db), (await findRevisionById(handle.db, revision))!.root);
    const afterEditsElsewhere: EditMeasure[] = [];
    for (let i = 0; i < elsewhereCount; i++) {
      const current = (await findRevisionById(handle.db, revision))!;
      const otherWriter = new TreeWriter(new SqlObjectReader(handle.db));
      await elsewhere.advanceTo(otherWriter, current.root);
      const other = pageAt(i + 0.25, elsewhereCount);
      const page = pageAt(i + 0.75, elsewhereCount);
      if (other === undefined || page === undefined) break;
      elsewhere.updatePage(other, { content: otherWriter.putMarkdown(pageMarkdown(-2, i, i + 1)) });
      const otherRoot = elsewhere.commit(otherWriter);
      const otherRevision = newId();
      await handle.db.transaction().execute(async (trx) => {
        await putObjects(trx, otherWriter.collect(otherRoot));
        const now = nowIso();
        await insertRevision(trx, { id: otherRevision, space_id: space.id, type: 'edits', parents: JSON.stringify([revision]), root: otherRoot, created_at: now, created_by: user.id, git: null, change_request_id: changeRequest.id });
        await updateChangeRequestRow(trx, changeRequest.id, { revision_id: otherRevision, updated_at: now });
      });
      revision = otherRevision;
      afterEditsElsewhere.push(await measuredEdit(page, pageMarkdown(-3, i, i + 1)));
      log(`edit after one elsewhere ${i + 1}: ${afterEditsElsewhere[i]!.ms} ms, ${afterEditsElsewhere[i]!.objectsRead} objects read`);
    }
    return {
      dialect: handle.dialect,
      pages: sections * perSection,
      buildMs,
      spaceBytes,
      edits,
      warmMedianMs: median(edits.slice(1).map((edit) => edit.ms)),
      medianBytesWritten: median(edits.map((edit) => edit.bytesWritten)),
      warmMedianObjectsRead: median(edits.slice(1).map((edit) => edit.objectsRead)),
      warmMedianCpuMs: median(edits.slice(1).map((edit) => edit.cpuMs)),
      afterEditsElsewhere,
      goalMs: EDIT_GOAL_MS,
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
  report.edits.forEach((edit, i) =>
    lines.push(`  edit ${i + 1}${i === 0 ? ' (cold)' : ''}: ${edit.ms} ms, ${edit.objects} new objects, ${edit.bytesWritten} bytes written, ${edit.objectsRead} tree objects read, ${edit.cpuMs} ms of CPU`),
  );
  lines.push(`  warm median ${round(report.warmMedianMs)} ms (${round(report.warmMedianCpuMs)} ms of CPU), median ${report.medianBytesWritten} bytes written and ${report.warmMedianObjectsRead} tree objects read per warm edit`);
  report.afterEditsElsewhere.forEach((edit, i) =>
    lines.push(`  edit ${i + 1} after an edit made elsewhere: ${edit.ms} ms, ${edit.objects} new objects, ${edit.objectsRead} tree objects read, ${edit.cpuMs} ms of CPU`),
  );
  lines.push(`  goal: warm median under ${report.goalMs} ms: ${report.warmMedianMs < report.goalMs ? 'met' : 'MISSED'}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const sections = positiveIntegerOption('sections');
  const perSection = positiveIntegerOption('per-section');
  const edits = positiveIntegerOption('edits');
  const databaseUrl = stringOption('database-url');
  // 0 is allowed: the base commit, which the A/B runs of the README compare with, cannot make such edits.
  const elsewhere = stringOption('edits-after-elsewhere');
  const report = await runEditBench({
    ...(elsewhere !== undefined ? { editsAfterElsewhere: Math.max(0, Math.floor(Number(elsewhere))) } : {}),
    ...(sections ? { sections } : {}),
    ...(perSection ? { perSection } : {}),
    ...(edits ? { edits } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    log: (line) => process.stderr.write(`edit bench: ${line}\n`),
  });
  printReport(report, formatEditBenchReport);
}

runIfScript(import.meta.url, 'edit bench', main);
