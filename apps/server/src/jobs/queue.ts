import type { Db } from '../db/index.js';
import { newId, nowIso } from '../ids.js';
import { insertJob } from '../stores/job-store.js';

export interface EnqueueOptions {
  /** Earliest start; now by default. */
  runAt?: Date;
  /** Attempts before the job is marked failed; 5 by default. */
  maxAttempts?: number;
}

/**
 * Queues a job. Pass the transaction of the request that asks for the work, so that the job exists if and
 * only if the request's writes were committed. Handlers must be idempotent: a job whose worker dies is run
 * again once its lease lapses.
 */
export async function enqueueJob(db: Db, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<string> {
  const id = newId();
  const now = nowIso();
  await insertJob(db, {
    id,
    kind,
    payload: JSON.stringify(payload ?? null),
    status: 'queued',
    run_at: options.runAt ? options.runAt.toISOString() : now,
    attempts: 0,
    max_attempts: options.maxAttempts ?? 5,
    locked_until: null,
    locked_by: null,
    last_error: null,
    created_at: now,
    finished_at: null,
  });
  return id;
}
