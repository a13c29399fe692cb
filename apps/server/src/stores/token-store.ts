import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { ApiTokensTable } from '../db/schema.js';
import { prepared } from './prepared.js';
import type { UserRow } from './user-store.js';

export type ApiTokenRow = Selectable<ApiTokensTable>;

export async function insertToken(db: Db, token: ApiTokenRow): Promise<void> {
  await db.insertInto('api_tokens').values(token).execute();
}

const tokenWithUser = prepared((db: Db, tokenHash: string) => db
  .selectFrom('api_tokens as t')
  .innerJoin('users as u', 'u.id', 't.user_id')
  .select([
    't.id as token_id', 't.user_id', 't.token_hash', 't.label', 't.created_at as token_created_at', 't.last_used_at',
    't.organization_id', 't.expires_at',
    'u.email', 'u.display_name', 'u.photo_url', 'u.created_at as user_created_at',
  ])
  .where('t.token_hash', '=', tokenHash));

/** The token with this hash and its user, in one indexed lookup (this runs on every request). */
export async function findTokenWithUser(db: Db, tokenHash: string): Promise<{ token: ApiTokenRow; user: UserRow } | undefined> {
  const [row] = await tokenWithUser(db, tokenHash);
  if (!row) return undefined;
  return {
    token: {
      id: row.token_id, user_id: row.user_id, token_hash: row.token_hash, label: row.label, created_at: row.token_created_at,
      last_used_at: row.last_used_at, organization_id: row.organization_id, expires_at: row.expires_at,
    },
    user: { id: row.user_id, email: row.email, display_name: row.display_name, photo_url: row.photo_url, created_at: row.user_created_at },
  };
}

const tokenById = prepared((db: Db, tokenId: string) => db
  .selectFrom('api_tokens').select(['id', 'user_id', 'organization_id', 'expires_at']).where('id', '=', tokenId));

/** What decides whether a token still holds (its user, scope and expiry), by primary key: visitor tokens of members check it on every request. */
export async function findTokenState(db: Db, tokenId: string): Promise<Pick<ApiTokenRow, 'id' | 'user_id' | 'organization_id' | 'expires_at'> | undefined> {
  const [row] = await tokenById(db, tokenId);
  return row;
}

export async function touchToken(db: Db, tokenId: string, at: string): Promise<void> {
  await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', tokenId).execute();
}

export async function deleteToken(db: Db, tokenId: string): Promise<void> {
  await db.deleteFrom('api_tokens').where('id', '=', tokenId).execute();
}
