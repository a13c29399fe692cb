import { transactionWithNotices } from '../db/change-notices.js';
import type { ServiceContext } from './context.js';

/**
 * Runs one service step in a transaction. The step gets the caller's context with `db` bound to the
 * transaction, so every store and service it calls (they all take `context.db` or a `Db`) writes and reads in
 * that same transaction; `tx.db` is the handle to pass to stores that take one directly. The change notices
 * its writes make (db/change-notices.ts) reach this process's caches once it commits, before it is answered.
 */
export function inTransaction<T>(context: ServiceContext, step: (tx: ServiceContext) => Promise<T>): Promise<T> {
  return transactionWithNotices(context.db, (trx) => step({ ...context, db: trx }));
}
