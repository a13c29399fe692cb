import type { SelectQueryBuilder } from 'kysely';
import type { DialectName } from './index.js';

/**
 * The few things that differ between SQLite and PostgreSQL, in one place so that stores stay portable.
 */

interface DriverError {
  code?: unknown;
}

/** A unique or primary-key constraint refused the write: the thing already exists. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as DriverError | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A foreign key refused the write: what it points at does not exist (or is still referenced). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as DriverError | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * Locks the selected rows for the rest of the transaction, skipping rows another transaction holds, so
 * that concurrent workers claim different rows. SQLite has one writer at a time and our transactions
 * begin immediate, so the plain select is already exclusive there.
 */
export function forUpdateSkipLocked<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: DialectName,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/** PostgreSQL answers COUNT(*) as a bigint string; SQLite as a number. */
export function toCount(value: unknown): number {
  return typeof value === 'number' ? value : Number(value ?? 0);
}
