import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { UsersTable } from '../db/schema.js';

export type UserRow = Selectable<UsersTable>;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

export async function insertUser(db: Db, user: UserRow): Promise<UserRow> {
  const row = { ...user, email: normalizeEmail(user.email) };
  await db.insertInto('users').values(row).execute();
  return row;
}

/** Changes the given columns of one user (the profile fields; the caller has checked who may). */
export async function updateUser(db: Db, id: string, patch: Updateable<UsersTable>): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}
