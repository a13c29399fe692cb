import type { Db } from '../db/index.js';
import { PreconditionFailedError } from '../errors.js';
import { enqueueJob } from '../jobs/queue.js';
import { deleteSpaceRow, findSpaceById } from '../stores/space-store.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';

/** How long a deleted space can be restored; after this it is removed for good. */
export const SPACE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export const SPACE_PURGE_JOB = 'space-purge';

export interface SpacePurgePayload {
  spaceIds: string[];
}

/** Whether a space deleted at `deletedAt` is past its retention at `now` (it then counts as gone, purged or not). */
export function isPastRetention(deletedAt: string, now: number = Date.now()): boolean {
  return Date.parse(deletedAt) + SPACE_RETENTION_MS <= now;
}

/**
 * Queues the removal for good of spaces just deleted, in the transaction that deleted them, to run when
 * their retention ends. One job per deletion: deleting a collection queues one job for all its spaces.
 */
export async function schedulePurge(db: Db, spaceIds: readonly string[], deletedAt: string): Promise<void> {
  if (spaceIds.length === 0) return;
  const payload: SpacePurgePayload = { spaceIds: [...spaceIds] };
  await enqueueJob(db, SPACE_PURGE_JOB, payload, { runAt: new Date(Date.parse(deletedAt) + SPACE_RETENTION_MS) });
}

/**
 * Removes for good the given spaces that are still deleted and past their retention at `now`; a space
 * restored since (or deleted again later, which queued its own job) is left alone. Idempotent, so a job
 * that runs twice does no harm. The space's revisions go with it; content objects stay, because they are
 * shared by hash with other revisions and spaces (a duplicate refers to the same objects).
 */
export async function purgeExpiredSpaces(context: ServiceContext, spaceIds: readonly string[], now: number = Date.now()): Promise<string[]> {
  return inTransaction(context, async (tx) => {
    const purged: string[] = [];
    for (const id of spaceIds) {
      const space = await findSpaceById(tx.db, id);
      if (!space || space.deleted_at === null || !isPastRetention(space.deleted_at, now)) continue;
      await deleteSpaceRow(tx.db, id);
      purged.push(id);
    }
    return purged;
  });
}

/**
 * A reason why spaces cannot leave their organization, from another part of the service (for example a
 * docs site of the organization that links one of them): the reason for a 412, or undefined.
 */
export type SpaceDepartureCheck = (db: Db, input: { organizationId: string; spaceIds: readonly string[] }) => Promise<string | undefined>;

const departureChecks = new Set<SpaceDepartureCheck>();

/**
 * Lets another family refuse transfers of spaces out of their organization (docs sites register theirs).
 * Answers a function that removes the check again.
 */
export function registerSpaceDepartureCheck(check: SpaceDepartureCheck): () => void {
  departureChecks.add(check);
  return () => {
    departureChecks.delete(check);
  };
}

/** Throws 412 when a registered check refuses to let these spaces leave their organization. */
export async function assertSpacesMayLeave(db: Db, organizationId: string, spaceIds: readonly string[]): Promise<void> {
  if (spaceIds.length === 0) return;
  for (const check of departureChecks) {
    const reason = await check(db, { organizationId, spaceIds });
    if (reason) throw new PreconditionFailedError(reason);
  }
}
