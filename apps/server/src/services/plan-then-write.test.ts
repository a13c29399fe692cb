import { expect, it } from 'vitest';
import { describeEachDialect, useTestDatabase } from '../../test/dialects.js';
import { ConflictError } from '../errors.js';
import { newId } from '../ids.js';
import { createLogger } from '../logger.js';
import { nextCounterValue } from '../stores/counter-store.js';
import { MAX_PLAN_ATTEMPTS, planThenWrite } from './plan-then-write.js';
import { inTransaction } from './transaction.js';

describeEachDialect('planThenWrite', (dialect) => {
  const database = useTestDatabase(dialect);
  // Read when a test runs: the database is opened before the suite's tests, not when it is declared.
  const context = () => ({ db: database.db, dialect, logger: createLogger('silent') });

  /**
   * A write whose basis is `state.version` (what another writer moves), planned as `plan of <version>`; the
   * write bumps a counter of its own scope, so what it wrote (or not, once rolled back) can be read back.
   * `events` logs each step in order, so a test can see that every plan came before its transaction.
   */
  function scenario(state: { version: number }, options: { moveOnLock?: (lockCount: number) => boolean; maxAttempts?: number } = {}) {
    const scope = `plan-then-write:${newId(8)}`;
    const events: string[] = [];
    let locks = 0;
    const run = () =>
      planThenWrite(context(), {
        basis: state.version,
        plan: async (version) => {
          events.push(`plan ${version}`);
          return `plan of ${version}`;
        },
        lock: async () => {
          locks++;
          // Another writer lands between the plan and the lock.
          if (options.moveOnLock?.(locks)) state.version++;
          events.push(`lock ${state.version}`);
          return { basis: state.version };
        },
        sameBasis: (a, b) => a === b,
        write: async (tx, plan) => {
          events.push(`write ${plan}`);
          return { plan, written: await nextCounterValue(tx.db, scope, 'writes') };
        },
        basisName: 'The test document',
        ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
      });
    return { run, events, writesSoFar: () => inTransaction(context(), (tx) => nextCounterValue(tx.db, scope, 'writes')) };
  }

  it('writes the first plan when its basis has not moved, planning outside the transaction', async () => {
    const { run, events } = scenario({ version: 1 });
    expect(await run()).toEqual({ plan: 'plan of 1', written: 1 });
    expect(events).toEqual(['plan 1', 'lock 1', 'write plan of 1']);
  });

  it('plans again on the new basis when another write moved it, and writes only that plan', async () => {
    const state = { version: 1 };
    const { run, events } = scenario(state, { moveOnLock: (lock) => lock <= 2 });
    expect(await run()).toEqual({ plan: 'plan of 3', written: 1 });
    expect(events).toEqual(['plan 1', 'lock 2', 'plan 2', 'lock 3', 'plan 3', 'lock 3', 'write plan of 3']);
  });

  it(`gives up with a 409 naming the basis after ${MAX_PLAN_ATTEMPTS} plans (or the bound given), having written nothing`, async () => {
    const { run, events, writesSoFar } = scenario({ version: 1 }, { moveOnLock: () => true });
    const error = await run().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).status).toBe(409);
    expect((error as ConflictError).message).toBe(`The test document kept changing while this request was being applied (${MAX_PLAN_ATTEMPTS} attempts); try again`);
    expect(events.filter((event) => event.startsWith('plan'))).toHaveLength(MAX_PLAN_ATTEMPTS);
    expect(events.filter((event) => event.startsWith('write'))).toEqual([]);
    // The counter starts at 1 here: no attempt wrote anything.
    expect(await writesSoFar()).toBe(1);

    const bounded = scenario({ version: 1 }, { moveOnLock: () => true, maxAttempts: 2 });
    await expect(bounded.run()).rejects.toThrow(/\(2 attempts\)/);
    expect(bounded.events).toEqual(['plan 1', 'lock 2', 'plan 2', 'lock 3']);
  });

  it('passes on what the lock or the write throws, without planning again, and rolls the write back', async () => {
    const refused = new ConflictError('refused');
    await expect(
      planThenWrite(context(), {
        basis: 1,
        plan: async () => 'plan',
        lock: async () => {
          throw refused;
        },
        sameBasis: (a, b) => a === b,
        write: async () => 'never',
        basisName: 'x',
      }),
    ).rejects.toBe(refused);

    const scope = `plan-then-write:${newId(8)}`;
    let plans = 0;
    await expect(
      planThenWrite(context(), {
        basis: 1,
        plan: async () => ++plans,
        lock: async () => ({ basis: 1 }),
        sameBasis: (a, b) => a === b,
        write: async (tx) => {
          await nextCounterValue(tx.db, scope, 'writes');
          throw new Error('the write failed half-way');
        },
        basisName: 'x',
      }),
    ).rejects.toThrow('the write failed half-way');
    expect(plans).toBe(1);
    expect(await inTransaction(context(), (tx) => nextCounterValue(tx.db, scope, 'writes'))).toBe(1);
  });
});
