import type { Db } from '../db/index.js';
import { enqueueJob } from '../jobs/queue.js';
import { indexedState, reindexSpace, reindexSpaceChanges, searchChangesBetween, searchPagesOf, type ReindexResult } from '../search/index.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import { findSpaceById } from '../stores/space-store.js';
import type { ServiceContext } from './context.js';
import { contentReader, loadRevisionContent, readPageMarkdown } from './revision-content.js';

/*
 * Keeping the search index of a space current. The index (src/search/) holds the sections of each space's
 * current main revision only; it is brought up to date by a `search.reindex` job that every write moving a
 * space's main revision queues in its own transaction (space creation and duplication, templates, merges,
 * Git imports), so a search never parses markdown and a write never waits for indexing.
 */

export const SEARCH_REINDEX_JOB = 'search.reindex';

export interface SearchReindexPayload {
  spaceId: string;
}

/**
 * Queues the reindex of the space's main content. Call it in the transaction that moves the space's main
 * revision: the job exists exactly when the move was committed. Queuing it more often is harmless (a job
 * finding the index current does nothing).
 */
export async function enqueueSearchReindex(db: Db, spaceId: string): Promise<void> {
  await enqueueJob(db, SEARCH_REINDEX_JOB, { spaceId } satisfies SearchReindexPayload);
}

/** Reindexes this many times at most when the main revision keeps moving while the index is written. */
const MAX_REINDEX_ROUNDS = 5;

export type ReindexOutcome = 'indexed' | 'current' | 'absent';

/** How the last round of a reindex went, for benchmarks and tests: which way it took and what it touched. */
export interface ReindexReport {
  outcome: ReindexOutcome;
  /** `changes`: the old and new trees were compared; `full`: every page of the new tree was walked. */
  mode: 'changes' | 'full' | 'none';
  /** Tree objects the comparison read (the full walk loads the whole tree: every page). */
  objectsRead: number;
  /** Markdown blobs read (pages whose rows were rewritten). */
  markdownRead: number;
  result: ReindexResult | undefined;
}

/**
 * Makes the space's search rows those of its CURRENT main revision (not of whichever revision queued the
 * job), so jobs may run in any order, twice, or after a later one: the result is the same. A deleted space
 * is indexed all the same (search answers 404 for it, and a restored space is searchable at once); a space
 * that is gone for good is left alone (its rows went with it).
 */
export async function reindexSpaceSearch(context: ServiceContext, spaceId: string): Promise<ReindexOutcome> {
  return (await reindexSpaceSearchReport(context, spaceId)).outcome;
}

/**
 * reindexSpaceSearch, answering what the last round did. When the space's rows come from a revision of the
 * space, the reindex compares that revision's tree with the new one and looks only at what changed (see
 * search/search-tree-changes.ts): an edit of one page costs that page, whatever the size of the space.
 * Otherwise (never indexed, rows of an older format, a revision that is gone), or with `full`, it walks the
 * whole new tree; both write the same rows.
 */
export async function reindexSpaceSearchReport(context: ServiceContext, spaceId: string, options: { full?: boolean } = {}): Promise<ReindexReport> {
  let report: ReindexReport = { outcome: 'current', mode: 'none', objectsRead: 0, markdownRead: 0, result: undefined };
  for (let round = 0; round < MAX_REINDEX_ROUNDS; round++) {
    const space = await findSpaceById(context.db, spaceId);
    if (!space) return { ...report, outcome: 'absent' };
    const indexed = await indexedState(context.db, spaceId);
    if (indexed?.revisionId === space.revision_id) return report;
    const revision = await findRevisionOfSpace(context.db, spaceId, space.revision_id);
    if (!revision) throw new Error(`space ${spaceId} has no revision ${space.revision_id}`);
    let markdownRead = 0;
    const readMarkdown = (contentHash: string): Promise<string> => {
      markdownRead++;
      return readPageMarkdown(context.db, { contentHash });
    };

    const comparable = indexed?.currentFormat && !options.full;
    const previous = comparable ? await findRevisionOfSpace(context.db, spaceId, indexed.revisionId) : undefined;
    let result: ReindexResult | undefined;
    let mode: ReindexReport['mode'] = 'changes';
    let objectsRead = 0;
    if (previous) {
      const changes = await searchChangesBetween(contentReader(context.db), previous.root, revision.root, readMarkdown);
      objectsRead = changes.objectsRead;
      result = await reindexSpaceChanges(context.db, spaceId, previous.id, revision.id, changes);
    }
    if (!result) {
      // No revision to compare with, or the rows moved meanwhile (or are of an older format): walk it all.
      mode = 'full';
      const content = await loadRevisionContent(context.db, revision.root);
      objectsRead += content.pages.size;
      result = await reindexSpace(context.db, spaceId, revision.id, searchPagesOf(content.tree, readMarkdown));
    }
    if (!result.indexed) return { ...report, outcome: 'absent' };
    report = { outcome: 'indexed', mode, objectsRead, markdownRead, result };
    // Another write may have moved main while this one was indexed: go round again for the newer one.
  }
  return report;
}
