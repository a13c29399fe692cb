import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { BrowserSessionsTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { prepared } from './prepared.js';
import type { UserRow } from './user-store.js';

export type BrowserSessionRow = Selectable<BrowserSessionsTable>;

export async function insertBrowserSession(db: Db, session: BrowserSessionRow): Promise<void> {
  await db.insertInto('browser_sessions').values(session).execute();
}

const sessionWithUser = prepared((db: Db, secretHash: string) => db
  .selectFrom('browser_sessions as s')
  .innerJoin('users as u', 'u.id', 's.user_id')
  .select([
    's.id', 's.user_id', 's.secret_hash', 's.method', 's.organization_id', 's.created_at', 's.last_used_at', 's.expires_at',
    's.user_agent', 's.address', 'u.email', 'u.display_name', 'u.photo_url', 'u.created_at as user_created_at',
  ])
  .where('s.secret_hash', '=', secretHash));

/** The session whose secret has this hash, with its user, in one indexed lookup (run on every request with the cookie). */
export async function findBrowserSessionWithUser(db: Db, secretHash: string): Promise<{ session: BrowserSessionRow; user: UserRow } | undefined> {
  const [row] = await sessionWithUser(db, secretHash);
  if (!row) return undefined;
  return {
    session: {
      id: row.id, user_id: row.user_id, secret_hash: row.secret_hash, method: row.method, organization_id: row.organization_id,
      created_at: row.created_at, last_used_at: row.last_used_at, expires_at: row.expires_at, user_agent: row.user_agent, address: row.address,
    },
    user: { id: row.user_id, email: row.email, display_name: row.display_name, photo_url: row.photo_url, created_at: row.user_created_at },
  };
}

const sessionById = prepared((db: Db, sessionId: string) => db
  .selectFrom('browser_sessions').select(['id', 'user_id', 'organization_id', 'last_used_at', 'expires_at']).where('id', '=', sessionId));

/** What decides whether a session still holds, by primary key (visitor tokens of members check it on every request). */
export async function findBrowserSessionState(db: Db, sessionId: string): Promise<Pick<BrowserSessionRow, 'id' | 'user_id' | 'organization_id' | 'last_used_at' | 'expires_at'> | undefined> {
  const [row] = await sessionById(db, sessionId);
  return row;
}

export async function touchBrowserSession(db: Db, sessionId: string, at: string): Promise<void> {
  await db.updateTable('browser_sessions').set({ last_used_at: at }).where('id', '=', sessionId).execute();
}

const SESSION_ORDER: KeysetOrder<BrowserSessionRow> = {
  columns: ['created_at', 'id'],
  keyOf: (row) => [row.created_at, row.id],
  direction: 'desc',
};
export const SESSION_ORDER_KEY_LENGTH = SESSION_ORDER.columns.length;

/** A user's sessions still open at `now` (not past their absolute expiry, used since `idleSince`), newest first. */
export async function listOpenBrowserSessions(
  db: Db, userId: string, open: { now: string; idleSince: string }, after: ReadonlyArray<string | number> | undefined, limit: number,
): Promise<KeysetPage<BrowserSessionRow>> {
  const query = db.selectFrom('browser_sessions').selectAll()
    .where('user_id', '=', userId).where('expires_at', '>', open.now).where('last_used_at', '>', open.idleSince);
  return keysetPage(query, SESSION_ORDER, after, limit);
}

export async function deleteBrowserSession(db: Db, userId: string, sessionId: string): Promise<void> {
  await db.deleteFrom('browser_sessions').where('id', '=', sessionId).where('user_id', '=', userId).execute();
}

/** Ends every session of a user, but `keepSessionId` when given. */
export async function deleteBrowserSessionsOfUser(db: Db, userId: string, keepSessionId?: string): Promise<void> {
  let query = db.deleteFrom('browser_sessions').where('user_id', '=', userId);
  if (keepSessionId !== undefined) query = query.where('id', '!=', keepSessionId);
  await query.execute();
}

/**
 * Ends the sessions through which a user acts in an organization they leave: those scoped to it (its SSO)
 * and the unscoped ones (a password session reaches every organization of the user). Sessions scoped to
 * another organization's SSO stay.
 */
export async function deleteBrowserSessionsReaching(db: Db, userId: string, organizationId: string): Promise<void> {
  await db.deleteFrom('browser_sessions').where('user_id', '=', userId)
    .where((eb) => eb.or([eb('organization_id', '=', organizationId), eb('organization_id', 'is', null)]))
    .execute();
}

/** Removes sessions past their absolute expiry or idle since `idleSince`: they can never be used again. */
export async function deleteExpiredBrowserSessions(db: Db, now: string, idleSince: string): Promise<void> {
  await db.deleteFrom('browser_sessions').where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_used_at', '<=', idleSince)])).execute();
}
