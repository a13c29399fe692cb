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

/**
 * Hands a claimed job back to the queue, due now, without counting the attempt: its process is stopping, and
 * another (or this one, restarted) runs it from the start. Only while this worker still holds it.
 */
export async function releaseJob(db: Db, id: string, workerId: string, now: string): Promise<boolean> {
  const result = await db.updateTable('jobs')
    .set((eb) => ({ status: 'queued', run_at: now, attempts: eb('attempts', '-', 1), locked_until: null, locked_by: null }))
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

/** The most jobs one scrape of `/metrics` reads: the queue's gauges stop counting there. */
export const JOB_QUEUE_SCAN_LIMIT = 10_000;

/**
 * Jobs queued or running, by kind and status, with the oldest `run_at` of each, for `/metrics`. Bounded: it
 * reads at most `JOB_QUEUE_SCAN_LIMIT` rows, the oldest by `run_at`, along the `jobs_due` index (status, run_at),
 * so a scrape costs the same whether the queue holds a hundred jobs or a million. Past the bound the counts
 * stop growing, and a kind all of whose jobs are newer than the rows read is not reported.
 */
export async function jobQueueStats(db: Db): Promise<Array<{ kind: string; status: 'queued' | 'running'; count: number; oldestRunAt: string }>> {
  const oldest = db.selectFrom('jobs')
    .select(['kind', 'status', 'run_at'])
    .where('status', 'in', ['queued', 'running'])
    .orderBy('status').orderBy('run_at')
    .limit(JOB_QUEUE_SCAN_LIMIT)
    .as('oldest');
  const rows = await db.selectFrom(oldest)
    .select((eb) => ['kind', 'status', eb.fn.countAll<number | string>().as('count'), eb.fn.min('run_at').as('oldest_run_at')])
    .groupBy(['kind', 'status'])
    .execute();
  return rows.map((row) => ({ kind: row.kind, status: row.status as 'queued' | 'running', count: Number(row.count), oldestRunAt: row.oldest_run_at }));
}
