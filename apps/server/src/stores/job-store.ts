import type { Selectable } from 'kysely';
import { forUpdateSkipLocked } from '../db/dialect.js';
import type { Db, DialectName } from '../db/index.js';
import type { JobsTable } from '../db/schema.js';

export type JobRow = Selectable<JobsTable>;

export async function insertJob(db: Db, job: JobRow): Promise<void> {
  await db.insertInto('jobs').values(job).execute();
}

export async function findJob(db: Db, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Claims the oldest due job: queued and due, or running with a lease that lapsed (its worker died). The
 * claim takes a lease and counts an attempt, in one transaction; on PostgreSQL the row is locked with
 * SKIP LOCKED so that concurrent workers claim different jobs.
 */
export async function claimDueJob(db: Db, dialect: DialectName, workerId: string, now: string, leaseUntil: string): Promise<JobRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const due = await forUpdateSkipLocked(
      trx.selectFrom('jobs').selectAll()
        .where((eb) => eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]),
          eb.and([eb('status', '=', 'running'), eb('locked_until', '<', now)]),
        ]))
        .orderBy('run_at').orderBy('id')
        .limit(1),
      dialect,
    ).executeTakeFirst();
    if (!due) return undefined;
    const claimed = { ...due, status: 'running' as const, attempts: due.attempts + 1, locked_until: leaseUntil, locked_by: workerId };
    await trx.updateTable('jobs')
      .set({ status: claimed.status, attempts: claimed.attempts, locked_until: claimed.locked_until, locked_by: claimed.locked_by })
      .where('id', '=', due.id)
      .execute();
    return claimed;
  });
}

/** The outcome of an attempt is only recorded by the worker that still holds the lease. */
export async function finishJob(db: Db, id: string, workerId: string, update: Partial<Pick<JobRow, 'status' | 'run_at' | 'last_error' | 'finished_at' | 'payload'>>): Promise<boolean> {
  const result = await db.updateTable('jobs')
    .set({ ...update, locked_until: null, locked_by: null })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function extendLease(db: Db, id: string, workerId: string, leaseUntil: string): Promise<void> {
  await db.updateTable('jobs').set({ locked_until: leaseUntil }).where('id', '=', id).where('locked_by', '=', workerId).execute();
}

/** Whether a job of this kind with exactly this payload waits to run (so that another would be redundant). */
export async function hasQueuedJob(db: Db, kind: string, payload: string): Promise<boolean> {
  const row = await db.selectFrom('jobs').select('id').where('kind', '=', kind).where('payload', '=', payload).where('status', '=', 'queued').limit(1).executeTakeFirst();
  return row !== undefined;
}
