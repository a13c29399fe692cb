import type { Kysely } from 'kysely';

/*
 * Roles granted on one space or one collection to a user or a team (the `inviteToSpace` family). A grant
 * goes with its space or collection, its user or its team (foreign keys, cascading); a member removed from
 * the organization loses their grants in it (member-store deleteMember). `role_rank` is the rank of `role`
 * (policies/roles.ts: read 1 ... admin 6), so that SQL takes the highest applicable grant with max().
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, target, targetTable] of [['space_grants', 'space_id', 'spaces'], ['collection_grants', 'collection_id', 'collections']] as const) {
    await db.schema
      .createTable(table)
      .addColumn(target, 'text', (c) => c.notNull().references(`${targetTable}.id`).onDelete('cascade'))
      // `user` or `team`; `principal_id` is the user's or the team's id, repeated in the column of its kind.
      .addColumn('principal', 'text', (c) => c.notNull())
      .addColumn('principal_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('team_id', 'text', (c) => c.references('teams.id').onDelete('cascade'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('role_rank', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, [target, 'principal', 'principal_id'])
      .execute();
    // Lists read a viewer's grants by user, and by the teams they are in.
    await db.schema.createIndex(`${table}_principal`).on(table).columns(['principal_id', target]).execute();
  }
}
