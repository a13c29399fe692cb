import { BadRequestError } from './errors.js';

/**
 * The list conventions of the contract: `page` is an opaque cursor (base64url of the JSON of the last
 * row's order key), `limit` defaults to 50 and is at most 1000, answers are `{next?: {page}, count, items}`
 * with `next` absent on the last page.
 */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

export type CursorKey = Array<string | number>;

export interface PageRequest {
  /** The decoded cursor, or undefined for the first page. */
  after: CursorKey | undefined;
  limit: number;
}

export interface ListAnswer<T> {
  next?: { page: string };
  count: number;
  items: T[];
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** A cursor that we did not make (or made for another order) is the caller's mistake: 400. */
export function decodeCursor(page: string, keyLength: number): CursorKey {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(page)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(page, 'base64url').toString('utf8'));
  } catch {
    throw new BadRequestError('query.page is not a valid page cursor');
  }
  if (!Array.isArray(parsed) || parsed.length !== keyLength
    || !parsed.every((value) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))) {
    throw new BadRequestError('query.page is not a valid page cursor');
  }
  return parsed as CursorKey;
}

export function pageRequest(query: { page?: string; limit?: number }, keyLength: number): PageRequest {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new BadRequestError(`query.limit must be between 1 and ${MAX_LIMIT}`);
  return { after: query.page === undefined ? undefined : decodeCursor(query.page, keyLength), limit };
}

export function listAnswer<Row, Item>(page: { rows: Row[]; count: number; nextKey?: CursorKey }, present: (row: Row) => Item): ListAnswer<Item> {
  return {
    ...(page.nextKey ? { next: { page: encodeCursor(page.nextKey) } } : {}),
    count: page.count,
    items: page.rows.map(present),
  };
}
