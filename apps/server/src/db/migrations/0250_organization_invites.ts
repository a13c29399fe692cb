import type { Kysely } from 'kysely';

/*
 * Invitations to an organization (services/organization-invite-service.ts): by e-mail (one person, one use)
 * or by link (anyone holding it, up to `max_uses`). The secret of the join address is looked up by its
 * SHA-256 and kept sealed only so that the mail job can put it in the message: no answer shows it after the
 * one that made it. `uses` is raised by a guarded update, so two people taking the last use cannot both get
 * it; `organization_invite_uses` records who joined with which invite, once each.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organization_invites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('role', 'text')
    .addColumn('sso', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('max_uses', 'integer')
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('organization_invites_by_organization').on('organization_invites').columns(['organization_id', 'kind', 'created_at', 'id']).execute();

  await db.schema
    .createTable('organization_invite_uses')
    .addColumn('invite_id', 'text', (c) => c.notNull().references('organization_invites.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('used_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_invite_uses_pk', ['invite_id', 'user_id'])
    .execute();
}
