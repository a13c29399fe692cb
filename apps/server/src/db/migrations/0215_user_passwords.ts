import type { Kysely } from 'kysely';

/*
 * Passwords of users (services/password-hashing.ts, services/password-rules.ts): the argon2id hash in its own
 * table rather than a column of `users`, so that no read of a user (`selectAll`, the user columns joined into
 * every list that names people) can carry a hash into a presenter or a log line. One row per user with a
 * password; people who sign in only through an identity provider have none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_passwords')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .execute();
}
