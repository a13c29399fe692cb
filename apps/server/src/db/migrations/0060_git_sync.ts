import type { Kysely } from 'kysely';

/*
 * Git sync (see services/git-sync-service.ts): one state row per synchronized space, and a log of the
 * imports and exports run on it. Credentials never reach either table: the URLs here are stripped of them,
 * and the job payload carries them encrypted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('git_sync_states')
    .addColumn('space_id', 'text', (c) => c.primaryKey().references('spaces.id').onDelete('cascade'))
    // The repository the space is linked to (without credentials), its branch and content folder; null once
    // unlinked, or while only standalone operations ran.
    .addColumn('url', 'text')
    .addColumn('ref', 'text')
    .addColumn('project_directory', 'text')
    .addColumn('provider', 'text')
    .addColumn('repo_name', 'text')
    .addColumn('repo_tree_url', 'text')
    .addColumn('repo_commit_url', 'text')
    // The commit the space's content last matched (made by an import, or by an export), and the revision
    // it matched: an import of the same commit onto that revision has nothing to do, and an export refuses
    // to overwrite commits pushed after it.
    .addColumn('commit_oid', 'text')
    .addColumn('revision_id', 'text')
    // `timestamp` of the newest operation applied to the space: older ones are refused.
    .addColumn('last_timestamp', 'text')
    // The latest operation queued on the space, which `getSpaceGitInfo` reports.
    .addColumn('operation_id', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('git_sync_operations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('direction', 'text', (c) => c.notNull())
    // running -> success | failure | timeout
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('standalone', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('force', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'text')
    .addColumn('job_id', 'text')
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addColumn('error', 'text')
    // What a successful operation produced: the commit imported or pushed, the revision made or exported.
    .addColumn('commit_oid', 'text')
    .addColumn('revision_id', 'text')
    .execute();
  await db.schema.createIndex('git_sync_operations_space').on('git_sync_operations').columns(['space_id', 'started_at', 'id']).execute();
}
