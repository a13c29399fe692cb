import { hostname } from 'node:os';
import { jitter, newId, nowIso } from '../ids.js';
import type { ServiceContext } from '../services/context.js';
import { claimDueJob, extendLease, finishJob, releaseJob, type JobRow } from '../stores/job-store.js';

export interface JobContext {
  services: ServiceContext;
  job: Pick<JobRow, 'id' | 'kind' | 'attempts' | 'max_attempts'>;
  /** Aborted when the runner stops; long jobs should give up and let a later attempt redo them. */
  signal: AbortSignal;
}

export type JobHandler = (payload: unknown, context: JobContext) => Promise<void>;

/**
 * A job that needs secrets (a Git remote's credentials) carries them sealed in its payload's `credentials`;
 * once the job is finished for good they have no use left, so the row keeps the rest of the payload only.
 */
export function withoutCredentials(payload: string): string {
  try {
    const parsed = JSON.parse(payload) as unknown;
    if (typeof parsed !== 'object' || parsed === null || !('credentials' in parsed)) return payload;
    const { credentials: _dropped, ...rest } = parsed as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return payload;
  }
}
export type JobHandlers = Readonly<Record<string, JobHandler>>;

export interface JobRunnerOptions {
  services: ServiceContext;
  handlers: JobHandlers;
  workerId?: string;
  /** How long a claim lasts; the runner renews it while the job runs. A lapsed lease means a dead worker. */
  leaseMs?: number;
  /** How often an idle runner looks for due jobs. */
  pollMs?: number;
  /** Delay before attempt `attempt + 1` after attempt `attempt` failed. */
  backoffMs?: (attempt: number) => number;
}

/** 1 s, 2 s, 4 s ... capped at 5 minutes, with up to 25% jitter so failing jobs do not retry in lock-step. */
export function defaultBackoffMs(attempt: number): number {
  const base = Math.min(1000 * 2 ** Math.max(0, attempt - 1), 5 * 60_000);
  return base + jitter(Math.floor(base / 4));
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 2000);
}

/** Whether `promise` settles within `ms` (a rejection counts as settled: the caller only waits). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([promise.then(() => true, () => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs queued jobs one at a time: claim (with a lease) -> run outside any transaction -> record success,
 * or schedule a retry with backoff, or mark failed after the last attempt.
 */
export class JobRunner {
  readonly workerId: string;
  readonly #services: ServiceContext;
  readonly #handlers: JobHandlers;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #backoffMs: (attempt: number) => number;
  readonly #abort = new AbortController();
  #stopRequested = false;
  /** The job being run now, with the promise of its attempt, so that stop() can wait for it or hand it back. */
  #current: { id: string; attempt: Promise<void> } | undefined;
  #loop: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;

  constructor(options: JobRunnerOptions) {
    this.#services = options.services;
    this.#handlers = options.handlers;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${newId(8)}`;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#pollMs = options.pollMs ?? 1000;
    this.#backoffMs = options.backoffMs ?? defaultBackoffMs;
  }

  get stopping(): boolean {
    return this.#stopRequested;
  }

  start(): void {
    if (this.#loop) return;
    this.#loop = this.#run();
  }

  /** Looks for work now rather than at the next poll (e.g. right after a request queued a job). */
  nudge(): void {
    this.#wake?.();
  }

  /**
   * Stops claiming jobs. The running one has `graceMs` to finish; past that its signal is aborted and it is
   * handed back to the queue (due now, the attempt not counted), so that another process runs it rather than
   * waiting for its lease to lapse. Resolves once nothing of this runner holds a job.
   */
  async stop(graceMs = 0): Promise<void> {
    this.#stopRequested = true;
    this.nudge();
    if (!this.#loop) return;
    const finished = await settlesWithin(this.#loop, graceMs);
    if (finished) return;
    this.#abort.abort();
    const current = this.#current;
    // A handler that heeds its signal ends at once, and the attempt is handed back where it failed; one that
    // does not is handed back from here, and whatever it records later is refused (the lease is no longer its).
    if (!(await settlesWithin(this.#loop, 1000)) && current) await this.#handBack(current.id);
  }

  async #handBack(jobId: string): Promise<void> {
    const { db, logger } = this.#services;
    if (await releaseJob(db, jobId, this.workerId, nowIso())) logger.info({ jobId }, 'job handed back: the runner is stopping');
  }

  async #run(): Promise<void> {
    while (!this.stopping) {
      let worked = false;
      try {
        worked = await this.runOnce();
      } catch (error) {
        this.#services.logger.error({ err: error }, 'job runner could not claim or record a job');
      }
      if (!worked && !this.stopping) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          // Not unref'd: in the worker process this timer is what keeps the process alive between jobs.
          this.#timer = setTimeout(resolve, this.#pollMs);
        });
        clearTimeout(this.#timer);
        this.#wake = undefined;
      }
    }
  }

  /** Claims and runs one due job; false when there was none. */
  async runOnce(): Promise<boolean> {
    const { db, dialect, logger } = this.#services;
    const now = Date.now();
    const job = await claimDueJob(db, dialect, this.workerId, new Date(now).toISOString(), new Date(now + this.#leaseMs).toISOString());
    if (!job) return false;
    const log = logger.child({ jobId: job.id, kind: job.kind, attempt: job.attempts });
    const handler = this.#handlers[job.kind];
    if (!handler) {
      await finishJob(db, job.id, this.workerId, { status: 'failed', last_error: `no handler for job kind ${job.kind}`, finished_at: nowIso() });
      log.error('job failed: unknown kind');
      return true;
    }
    const renew = setInterval(() => {
      extendLease(db, job.id, this.workerId, new Date(Date.now() + this.#leaseMs).toISOString())
        .catch((error: unknown) => log.warn({ err: error }, 'could not renew job lease'));
    }, Math.max(10, Math.floor(this.#leaseMs / 2)));
    const attempt = handler(JSON.parse(job.payload) as unknown, {
      services: this.#services,
      job: { id: job.id, kind: job.kind, attempts: job.attempts, max_attempts: job.max_attempts },
      signal: this.#abort.signal,
    });
    this.#current = { id: job.id, attempt };
    try {
      await attempt;
      clearInterval(renew);
      await finishJob(db, job.id, this.workerId, { status: 'succeeded', finished_at: nowIso(), payload: withoutCredentials(job.payload) });
      log.info('job succeeded');
    } catch (error) {
      clearInterval(renew);
      if (this.#abort.signal.aborted) {
        // Cut short by stop(): not the job's failure.
        await this.#handBack(job.id);
      } else if (job.attempts >= job.max_attempts) {
        await finishJob(db, job.id, this.workerId, { status: 'failed', last_error: errorText(error), finished_at: nowIso(), payload: withoutCredentials(job.payload) });
        log.error({ err: error }, 'job failed for good');
      } else {
        const retryAt = new Date(Date.now() + this.#backoffMs(job.attempts)).toISOString();
        await finishJob(db, job.id, this.workerId, { status: 'queued', run_at: retryAt, last_error: errorText(error) });
        log.warn({ err: error, retryAt }, 'job failed; will retry');
      }
    } finally {
      this.#current = undefined;
    }
    return true;
  }
}
