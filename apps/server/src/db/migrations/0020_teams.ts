import { sql, type Kysely } from 'kysely';

// Teams of an organization and who is in them. Members themselves live in `organization_members`
// (0001); a team membership is removed with the organization membership by the member service.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Team lists page through an organization's teams in creation order.
  await db.schema.createIndex('teams_organization_created').on('teams').columns(['organization_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('added_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .addCheckConstraint('team_members_role', sql`role in ('owner', 'member')`)
    .execute();
  // A member's teams, their team count and their claims go from the user to the teams.
  await db.schema.createIndex('team_members_user').on('team_members').columns(['user_id', 'team_id']).execute();

  // Secrets every node of a deployment must share (the key that signs visitor claims when
  // QUIRE_JWT_SECRET is not set); made once by whichever node needs one first.
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
