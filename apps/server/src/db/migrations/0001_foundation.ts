import type { Kysely } from 'kysely';

// Portable across SQLite and PostgreSQL: text ids and timestamps made in code, integers for booleans,
// JSON as text. Later families add their own numbered files beside this one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('photo_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_tokens_user_id').on('api_tokens').column('user_id').execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('email_domains', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('hostname', 'text')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('business'))
    .addColumn('use_case', 'text')
    .addColumn('community_type', 'text')
    .addColumn('default_role', 'text')
    .addColumn('default_site_id', 'text')
    .addColumn('sso', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ai', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invite_links', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('merge_rules', 'text', (c) => c.notNull().defaultTo('{"type":"none"}'))
    .addColumn('custom_hostname', 'text')
    .addColumn('logo_url', 'text')
    .execute();

  await db.schema
    .createTable('organization_members')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text')
    .addColumn('joined_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text')
    .addColumn('sso', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('organization_members_pk', ['organization_id', 'user_id'])
    .execute();
  // Listing a user's organizations goes from the user to the memberships.
  await db.schema.createIndex('organization_members_user').on('organization_members').columns(['user_id', 'organization_id']).execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('locked_until', 'text')
    .addColumn('locked_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  // The runner looks for unfinished jobs that are due.
  await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();

  await db.schema
    .createTable('counters')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('counters_pk', ['scope', 'name'])
    .execute();
}
