import type { Db } from '../db/index.js';
import { enqueueJob } from '../jobs/queue.js';
import { indexedRevision, reindexSpace, searchPagesOf } from '../search/index.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import { findSpaceById } from '../stores/space-store.js';
import type { ServiceContext } from './context.js';
import { loadRevisionContent, readPageMarkdown } from './revision-content.js';

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

/**
 * Makes the space's search rows those of its CURRENT main revision (not of whichever revision queued the
 * job), so jobs may run in any order, twice, or after a later one: the result is the same. A deleted space
 * is indexed all the same (search answers 404 for it, and a restored space is searchable at once); a space
 * that is gone for good is left alone (its rows went with it).
 */
export async function reindexSpaceSearch(context: ServiceContext, spaceId: string): Promise<ReindexOutcome> {
  let outcome: ReindexOutcome = 'current';
  for (let round = 0; round < MAX_REINDEX_ROUNDS; round++) {
    const space = await findSpaceById(context.db, spaceId);
    if (!space) return 'absent';
    if ((await indexedRevision(context.db, spaceId)) === space.revision_id) return outcome;
    const revision = await findRevisionOfSpace(context.db, spaceId, space.revision_id);
    if (!revision) throw new Error(`space ${spaceId} has no revision ${space.revision_id}`);
    const content = await loadRevisionContent(context.db, revision.root);
    const pages = searchPagesOf(content.tree, (contentHash) => readPageMarkdown(context.db, { contentHash }));
    const result = await reindexSpace(context.db, spaceId, revision.id, pages);
    if (!result.indexed) return 'absent';
    outcome = 'indexed';
    // Another write may have moved main while this one was indexed: go round again for the newer one.
  }
  return outcome;
}
