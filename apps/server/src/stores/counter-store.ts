import type { Db } from '../db/index.js';

/**
 * Per-scope sequence numbers (e.g. the `number` of a change request within its space). Call it inside the
 * transaction that inserts the numbered row: the upsert takes the row lock, so two concurrent inserts get
 * different numbers, and the caller's unique constraint on (scope, number) is the last line of defence.
 */
export async function nextCounterValue(db: Db, scope: string, name: string): Promise<number> {
  const row = await db.insertInto('counters')
    .values({ scope, name, value: 1 })
    .onConflict((conflict) => conflict.columns(['scope', 'name']).doUpdateSet((eb) => ({ value: eb('counters.value', '+', 1) })))
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}
