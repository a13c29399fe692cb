import type { Kysely } from 'kysely';

/*
 * Invite links to one space or one collection (the public API's `CreateInviteToSpace` and
 * `CreateInviteToCollection`): joining with one makes the person a guest of the organization (its `role` stays
 * null) and grants them `level` on that content. At most one of `space_id` and `collection_id` is set; neither
 * on an invitation to the organization itself. Deleting the content deletes its invites (nothing left to give).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organization_invites')
    .addColumn('space_id', 'text', (c) => c.references('spaces.id').onDelete('cascade'))
    .execute();
  await db.schema.alterTable('organization_invites')
    .addColumn('collection_id', 'text', (c) => c.references('collections.id').onDelete('cascade'))
    .execute();
  await db.schema.alterTable('organization_invites').addColumn('level', 'text').execute();
  // Purging a space or collection deletes through these columns: indexed, so the cascade does not scan invites.
  await db.schema.createIndex('organization_invites_by_space').on('organization_invites').column('space_id').execute();
  await db.schema.createIndex('organization_invites_by_collection').on('organization_invites').column('collection_id').execute();
}
