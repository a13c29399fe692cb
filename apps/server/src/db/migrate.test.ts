import { Migrator, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from '../../test/dialects.js';
import { parseDatabaseUrl } from '../config.js';
import { presentGitSyncState } from '../http/presenters/git-sync-presenter.js';
import type { SpaceGitSyncCopy } from '../stores/git-sync-store.js';
import { openDatabase, type DatabaseHandle } from './index.js';
import { folderMigrationProvider, migrateToLatest, pendingMigrations } from './migrate.js';

describeEachDialect('migrations', (dialect) => {
  let target: TestDatabaseUrl;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    target = createTestDatabaseUrl(dialect);
    handle = await openDatabase(parseDatabaseUrl(target.url));
  });
  afterAll(async () => {
    await handle?.close();
    await target?.drop();
  });

  describe('0070_space_git_sync_copy', () => {
    it('turns the presented gitSync kept on spaces into the stored rows it was presented from', async () => {
      const migrator = new Migrator({ db: handle.db, provider: folderMigrationProvider, ...(handle.schema ? { migrationTableSchema: handle.schema } : {}) });
      const before = await migrator.migrateTo('0060_git_sync');
      expect(before.error).toBeUndefined();

      // The schema as of 0060, not the current one the typed handle describes.
      const db = handle.db as unknown as Kysely<any>;
      const now = '2026-01-02T03:04:05.000Z';
      await db.insertInto('organizations').values({ id: 'org', title: 'Org', created_at: now }).execute();
      const space = (id: string, gitSync: string | null) => ({
        id, organization_id: 'org', visibility: 'private', revision_id: 'rev', position: id, created_at: now, updated_at: now, git_sync: gitSync,
      });
      const state = {
        space_id: 'synced', url: 'https://git.example/acme/docs.git', ref: 'main', project_directory: null, provider: 'github',
        repo_name: 'acme/docs', repo_tree_url: null, repo_commit_url: null, commit_oid: null, revision_id: null,
        last_timestamp: null, operation_id: 'op', updated_at: now,
      };
      const operation = {
        id: 'op', space_id: 'synced', direction: 'import' as const, state: 'failure' as const, standalone: 0, force: 0,
        url: state.url, ref: 'main', timestamp: null, job_id: null, created_by: null, started_at: now, ended_at: now,
        error: 'The branch main does not exist', commit_oid: null, revision_id: null,
      };
      const presented = presentGitSyncState(state, operation);
      await db.insertInto('spaces').values([
        space('synced', JSON.stringify(presented)),
        space('never', null),
        // A copy left behind without a state row is cleared, as the service would have.
        space('unlinked', JSON.stringify(presented)),
      ]).execute();
      await db.insertInto('git_sync_states').values(state).execute();
      await db.insertInto('git_sync_operations').values(operation).execute();

      await migrateToLatest(handle);

      const rows = await db.selectFrom('spaces').select(['id', 'git_sync']).orderBy('id').execute();
      expect(rows.map((row) => [row.id, row.git_sync === null])).toEqual([['never', true], ['synced', false], ['unlinked', true]]);
      const copy = JSON.parse(rows[1]!.git_sync!) as SpaceGitSyncCopy;
      expect(copy).toEqual({ state, operation });
      expect(presentGitSyncState(copy.state, copy.operation ?? undefined)).toEqual(presented);
    });
  });
});

describeEachDialect('migrations', (dialect) => {
  describe('0400_search_impacts', () => {
    it('marks every indexed space stale and queues its reindex (which rewrites its rows with their postings)', async () => {
      const target = createTestDatabaseUrl(dialect);
      const handle = await openDatabase(parseDatabaseUrl(target.url));
      try {
        const migrator = new Migrator({ db: handle.db, provider: folderMigrationProvider, ...(handle.schema ? { migrationTableSchema: handle.schema } : {}) });
        expect((await migrator.migrateTo('0370_search_row_format')).error).toBeUndefined();
        const db = handle.db as unknown as Kysely<any>;
        const now = '2026-01-02T03:04:05.000Z';
        await db.insertInto('organizations').values({ id: 'org', title: 'Org', created_at: now }).execute();
        await db.insertInto('spaces').values(['indexed', 'unindexed'].map((id) => ({
          id, organization_id: 'org', visibility: 'private', revision_id: 'rev', position: id, created_at: now, updated_at: now,
        }))).execute();
        await db.insertInto('search_spaces').values({
          space_id: 'indexed', revision_id: 'rev', row_block: 7, next_row: 1, page_count: 1, section_count: 1, indexed_at: now, row_format: 1,
        }).execute();

        await migrateToLatest(handle);

        expect(await db.selectFrom('search_spaces').select(['space_id', 'revision_id', 'row_format']).execute())
          .toEqual([{ space_id: 'indexed', revision_id: '', row_format: 1 }]);
        const jobs = await db.selectFrom('jobs').select(['kind', 'payload', 'status']).where('kind', '=', 'search.reindex').execute();
        expect(jobs).toEqual([{ kind: 'search.reindex', payload: JSON.stringify({ spaceId: 'indexed' }), status: 'queued' }]);
      } finally {
        await handle.close();
        await target.drop();
      }
    });
  });

  describe('0201_site_basename_unique', () => {
    it('leaves a shared basename to its oldest site, addresses the later ones by id again, then refuses a second one', async () => {
      const target = createTestDatabaseUrl(dialect);
      const handle = await openDatabase(parseDatabaseUrl(target.url));
      try {
        const migrator = new Migrator({ db: handle.db, provider: folderMigrationProvider, ...(handle.schema ? { migrationTableSchema: handle.schema } : {}) });
        expect((await migrator.migrateTo('0200_site_visitor_auth')).error).toBeUndefined();
        const db = handle.db as unknown as Kysely<any>;
        await db.insertInto('organizations').values([
          { id: 'org1', title: 'One', created_at: '2026-01-01T00:00:00.000Z' },
          { id: 'org2', title: 'Two', created_at: '2026-01-01T00:00:00.000Z' },
        ]).execute();
        const site = (id: string, organization: string, basename: string | null, createdAt: string) => ({
          id, organization_id: organization, type: 'basic', title: id, visibility: 'public', published: 1, basename, created_at: createdAt, updated_at: createdAt,
        });
        await db.insertInto('sites').values([
          site('newer', 'org2', 'docs', '2026-03-01T00:00:00.000Z'),
          site('oldest', 'org1', 'docs', '2026-01-01T00:00:00.000Z'),
          site('alone', 'org2', 'guide', '2026-02-01T00:00:00.000Z'),
          site('plain', 'org1', null, '2026-02-01T00:00:00.000Z'),
        ]).execute();

        await migrateToLatest(handle);

        const rows = await db.selectFrom('sites').select(['id', 'basename']).orderBy('id').execute();
        expect(rows).toEqual([
          { id: 'alone', basename: 'guide' }, { id: 'newer', basename: null }, { id: 'oldest', basename: 'docs' }, { id: 'plain', basename: null },
        ]);
        await expect(db.updateTable('sites').set({ basename: 'docs' }).where('id', '=', 'newer').execute()).rejects.toThrow();
      } finally {
        await handle.close();
        await target.drop();
      }
    });
  });
});

describeEachDialect('migrations at start', (dialect) => {
  /** The handle with every statement sent through it counted (transactions included: plugins carry over). */
  const counted = (handle: DatabaseHandle) => {
    const statements: string[] = [];
    const plugin: KyselyPlugin = {
      transformQuery: (args) => {
        statements.push(args.node.kind);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    return { handle: { ...handle, db: handle.db.withPlugin(plugin) }, statements };
  };

  it('migrates a database that lacks migrations, and finds one up to date with one read of the bookkeeping table', async () => {
    const target = createTestDatabaseUrl(dialect);
    const handle = await openDatabase(parseDatabaseUrl(target.url));
    try {
      const migrator = new Migrator({ db: handle.db, provider: folderMigrationProvider, ...(handle.schema ? { migrationTableSchema: handle.schema } : {}) });
      expect((await migrator.migrateTo('0370_search_row_format')).error).toBeUndefined();

      // Migrations the database lacks are run by Kysely's migrator, as before.
      const lacking = await pendingMigrations(handle.db, handle.schema);
      expect(lacking).toContain('0400_search_impacts');
      const behind = counted(handle);
      expect(await migrateToLatest(behind.handle)).toEqual(lacking);
      expect(behind.statements.length).toBeGreaterThan(5);
      expect(await pendingMigrations(handle.db, handle.schema)).toEqual([]);

      // Every later start: the one read, not the migrator (migration modules, locks, table listings).
      const again = counted(handle);
      expect(await migrateToLatest(again.handle)).toEqual([]);
      expect(again.statements).toEqual(['RawNode']);
    } finally {
      await handle.close();
      await target.drop();
    }
  });

  it('leaves a database that ran a migration this build does not have to the migrator, which refuses it', async () => {
    const target = createTestDatabaseUrl(dialect);
    const handle = await openDatabase(parseDatabaseUrl(target.url));
    try {
      await migrateToLatest(handle);
      const db = handle.db as unknown as Kysely<any>;
      await db.insertInto('kysely_migration').values({ name: '9999_from_a_newer_build', timestamp: new Date().toISOString() }).execute();
      await expect(migrateToLatest(handle)).rejects.toThrow(/9999_from_a_newer_build/);
    } finally {
      await handle.close();
      await target.drop();
    }
  });
});
