import { ConflictError } from '../errors.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';

/*
 * Writes that rest on slow work (applying a batch of edits to a large tree, a three-way merge) do that
 * work, the plan, before the transaction, against what they read then: its basis. A transaction holds row
 * locks (on SQLite, the only connection) for as long as it runs, so nothing slow and no network or disk I/O
 * belongs in it. The transaction locks the rows the write depends on and reads the basis again; when
 * another write moved it meanwhile, the transaction is rolled back and the plan made again on the new
 * basis. Each such retry means another write landed, so a handful of concurrent writers all get through;
 * one that keeps losing gets a 409 after `MAX_PLAN_ATTEMPTS` plans rather than retrying for ever.
 */

/** Plans made at most per write: enough for the concurrent writers of one change request or space. */
export const MAX_PLAN_ATTEMPTS = 8;

export interface PlanThenWrite<Basis, Plan, Locked extends { basis: Basis }, Result> {
  /** What the first plan rests on, read before the transaction. */
  basis: Basis;
  /** The slow work, outside any transaction (it reads through the root database handle). */
  plan(basis: Basis): Promise<Plan>;
  /**
   * In the transaction (`tx`, the context bound to it, as `inTransaction` gives its step), before anything is
   * written: locks the rows the write depends on, checks again whatever the write needs (it may throw), and
   * answers the basis as it is now.
   */
  lock(tx: ServiceContext): Promise<Locked>;
  sameBasis(a: Basis, b: Basis): boolean;
  /** In the same transaction, once the plan's basis is known to be the current one. */
  write(tx: ServiceContext, plan: Plan, locked: Locked): Promise<Result>;
  /** The basis in words, for the 409 when it moved under every plan: `the content of change request #3`. */
  basisName: string;
  /** Defaults to `MAX_PLAN_ATTEMPTS`. */
  maxAttempts?: number;
}

/** Thrown inside the transaction to roll it back (it has written nothing) and plan again on `basis`. */
class BasisMoved<Basis> extends Error {
  constructor(readonly basis: Basis) {
    super('the basis of the plan moved');
  }
}

/**
 * Plans outside the transaction, then writes inside it if the plan's basis has not moved (see above). The lock
 * and write steps get the context bound to the transaction, like any `inTransaction` step, rather than a bare
 * `Db`: every caller's lock re-checks access through services that take a context.
 */
export async function planThenWrite<Basis, Plan, Locked extends { basis: Basis }, Result>(
  context: ServiceContext,
  steps: PlanThenWrite<Basis, Plan, Locked, Result>,
): Promise<Result> {
  const maxAttempts = steps.maxAttempts ?? MAX_PLAN_ATTEMPTS;
  let basis = steps.basis;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const plan = await steps.plan(basis);
    const plannedOn = basis;
    try {
      return await inTransaction(context, async (tx) => {
        const locked = await steps.lock(tx);
        if (!steps.sameBasis(locked.basis, plannedOn)) throw new BasisMoved(locked.basis);
        return steps.write(tx, plan, locked);
      });
    } catch (error) {
      if (!(error instanceof BasisMoved)) throw error;
      basis = error.basis as Basis;
    }
  }
  throw new ConflictError(`${steps.basisName} kept changing while this request was being applied (${maxAttempts} attempts); try again`);
}
