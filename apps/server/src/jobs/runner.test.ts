import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachDialect, openTestDatabase } from '../../test/dialects.js';
import { createLogger } from '../logger.js';
import type { ServiceContext } from '../services/context.js';
import { nextCounterValue } from '../stores/counter-store.js';
import { findJob } from '../stores/job-store.js';
import { enqueueJob } from './queue.js';
import { JobRunner, type JobHandler } from './runner.js';

describeEachDialect('job runner', (dialect) => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let services: ServiceContext;
  beforeEach(async () => {
    database = await openTestDatabase(dialect);
    services = { db: database.db, dialect: database.dialect, logger: createLogger('silent') };
  });
  afterEach(async () => {
    await database.drop();
  });

  it('runs a queued job once and records success', async () => {
    const seen: unknown[] = [];
    const runner = new JobRunner({ services, handlers: { echo: async (payload) => { seen.push(payload); } } });
    const id = await enqueueJob(services.db, 'echo', { n: 1 });
    expect(await runner.runOnce()).toBe(true);
    expect(await runner.runOnce()).toBe(false);
    expect(seen).toEqual([{ n: 1 }]);
    expect(await findJob(services.db, id)).toMatchObject({ status: 'succeeded', attempts: 1, locked_by: null });
  });

  it('retries a failing job with backoff, then marks it failed after the last attempt', async () => {
    let calls = 0;
    const failing: JobHandler = async () => {
      calls++;
      throw new Error('remote down');
    };
    const runner = new JobRunner({ services, handlers: { flaky: failing }, backoffMs: () => 60_000 });
    const id = await enqueueJob(services.db, 'flaky', null, { maxAttempts: 2 });
    await runner.runOnce();
    const retried = await findJob(services.db, id);
    expect(retried).toMatchObject({ status: 'queued', attempts: 1, last_error: 'Error: remote down' });
    expect(Date.parse(retried!.run_at)).toBeGreaterThan(Date.now() + 50_000);
    // Not due yet: the backoff holds it back.
    expect(await runner.runOnce()).toBe(false);
    await services.db.updateTable('jobs').set({ run_at: new Date(Date.now() - 1).toISOString() }).where('id', '=', id).execute();
    await runner.runOnce();
    expect(await findJob(services.db, id)).toMatchObject({ status: 'failed', attempts: 2 });
    expect(calls).toBe(2);
  });

  it('keeps sealed credentials for retries and erases them once the job is finished for good', async () => {
    let fail = true;
    const runner = new JobRunner({ services, handlers: { sync: async () => { if (fail) throw new Error('remote down'); } }, backoffMs: () => 0 });
    const succeeding = await enqueueJob(services.db, 'sync', { space: 's1', credentials: 'sealed-secret' }, { maxAttempts: 3 });
    await runner.runOnce();
    expect(JSON.parse((await findJob(services.db, succeeding))!.payload)).toEqual({ space: 's1', credentials: 'sealed-secret' });
    fail = false;
    await services.db.updateTable('jobs').set({ run_at: new Date(Date.now() - 1).toISOString() }).where('id', '=', succeeding).execute();
    await runner.runOnce();
    expect(await findJob(services.db, succeeding)).toMatchObject({ status: 'succeeded' });
    expect(JSON.parse((await findJob(services.db, succeeding))!.payload)).toEqual({ space: 's1' });

    fail = true;
    const failing = await enqueueJob(services.db, 'sync', { space: 's2', credentials: 'sealed-secret' }, { maxAttempts: 1 });
    await runner.runOnce();
    expect(await findJob(services.db, failing)).toMatchObject({ status: 'failed' });
    expect(JSON.parse((await findJob(services.db, failing))!.payload)).toEqual({ space: 's2' });
  });

  it('reclaims a job whose worker died (lease lapsed) and ignores the dead worker', async () => {
    const id = await enqueueJob(services.db, 'echo', {});
    await services.db.updateTable('jobs')
      .set({ status: 'running', attempts: 1, locked_by: 'dead-worker', locked_until: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id).execute();
    const runner = new JobRunner({ services, handlers: { echo: async () => {} } });
    expect(await runner.runOnce()).toBe(true);
    expect(await findJob(services.db, id)).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('does not claim a job another worker holds a live lease on', async () => {
    const id = await enqueueJob(services.db, 'echo', {});
    await services.db.updateTable('jobs')
      .set({ status: 'running', attempts: 1, locked_by: 'busy-worker', locked_until: new Date(Date.now() + 60_000).toISOString() })
      .where('id', '=', id).execute();
    const runner = new JobRunner({ services, handlers: { echo: async () => {} } });
    expect(await runner.runOnce()).toBe(false);
  });

  it('fails a job of an unknown kind', async () => {
    const id = await enqueueJob(services.db, 'nobody-handles-this', {});
    await new JobRunner({ services, handlers: {} }).runOnce();
    expect(await findJob(services.db, id)).toMatchObject({ status: 'failed', last_error: 'no handler for job kind nobody-handles-this' });
  });

  it('runs jobs in the background once started, and stops', async () => {
    let resolveRun!: (payload: unknown) => void;
    const ran = new Promise<unknown>((resolve) => { resolveRun = resolve; });
    const runner = new JobRunner({ services, handlers: { echo: async (payload) => resolveRun(payload) }, pollMs: 20 });
    runner.start();
    await enqueueJob(services.db, 'echo', 'hello');
    runner.nudge();
    expect(await ran).toBe('hello');
    await runner.stop();
    expect(runner.stopping).toBe(true);
  });

  it('lets the running job finish within the grace a stop gives it', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => { started = resolve; });
    const runner = new JobRunner({ services, handlers: { slow: async () => { started(); await new Promise((resolve) => setTimeout(resolve, 200)); } }, pollMs: 20 });
    const id = await enqueueJob(services.db, 'slow', {});
    runner.start();
    await running;
    await runner.stop(5000);
    expect(await findJob(services.db, id)).toMatchObject({ status: 'succeeded', attempts: 1, locked_by: null });
  });

  it('hands a job back to the queue, due now and the attempt not counted, when it outlasts the grace', async () => {
    // One handler heeds its signal, the other ignores it: both jobs go back to the queue.
    const handlers: Record<string, JobHandler> = {
      heeds: (_payload, { signal }) => { return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))); },
      ignores: () => { return new Promise(() => {}); },
    };
    for (const kind of ['heeds', 'ignores']) {
      const runner = new JobRunner({ services, handlers, pollMs: 20 });
      const id = await enqueueJob(services.db, kind, {});
      runner.start();
      await new Promise<void>((resolve) => { const wait = () => findJob(services.db, id).then((job) => (job?.status === 'running' ? resolve() : setTimeout(wait, 10))); void wait(); });
      const stoppedAt = Date.now();
      await runner.stop(100);
      expect(Date.now() - stoppedAt, kind).toBeLessThan(5000);
      const job = await findJob(services.db, id);
      expect(job, kind).toMatchObject({ status: 'queued', attempts: 0, locked_by: null, locked_until: null, last_error: null });
      expect(Date.parse(job!.run_at), kind).toBeLessThanOrEqual(Date.now());
      // Another runner takes it at once, without waiting for a lease to lapse.
      const other = new JobRunner({ services, handlers: { [kind]: async () => {} } });
      expect(await other.runOnce(), kind).toBe(true);
      expect(await findJob(services.db, id), kind).toMatchObject({ status: 'succeeded', attempts: 1 });
    }
  });

  it('numbers per scope with counters, also inside a rolled-back transaction', async () => {
    expect(await nextCounterValue(services.db, 'space:a', 'change_request')).toBe(1);
    expect(await nextCounterValue(services.db, 'space:a', 'change_request')).toBe(2);
    expect(await nextCounterValue(services.db, 'space:b', 'change_request')).toBe(1);
    await expect(services.db.transaction().execute(async (trx) => {
      await nextCounterValue(trx, 'space:a', 'change_request');
      throw new Error('rollback');
    })).rejects.toThrow('rollback');
    expect(await nextCounterValue(services.db, 'space:a', 'change_request')).toBe(3);
  });
});
