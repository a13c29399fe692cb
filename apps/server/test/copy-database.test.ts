import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { createQuireClient, unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { builtEntry, run, startLoggedServer } from './built.js';
import { contentFixtures, crPath, md, readPages, textFile } from './content-fixtures.js';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { createTestDatabaseUrl } from './dialects.js';
import { createSpace, newMember, newOrg } from './helpers.js';
import { startTestServer } from './server.js';

/*
 * `copy-database`: a SQLite install with real content, made through the API, copied by the built admin
 * command into an empty PostgreSQL schema, and read back through the client from a server started there.
 * PostgreSQL only (the target is one); skipped without TEST_DATABASE_URL.
 */

const PUBLIC_URL = 'https://docs.example.com';

/** Everything the test reads back, from either server, as the API answers it. */
async function readAll(client: QuireClient, at: { organizationId: string; spaceId: string; changeRequestId: string; siteId: string }) {
  const organization = await unwrap(client.GET('/orgs/{organizationId}', { params: { path: { organizationId: at.organizationId } } }));
  const members = await unwrap(client.GET('/orgs/{organizationId}/members', { params: { path: { organizationId: at.organizationId }, query: { limit: 100 } } }));
  const space = await unwrap(client.GET('/spaces/{spaceId}', { params: { path: { spaceId: at.spaceId } } }));
  const revision = await unwrap(client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: at.spaceId } } }));
  const pages = await readPages(client, { spaceId: at.spaceId });
  const changeRequest = await unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: crPath(at.spaceId, at.changeRequestId) } }));
  const crPages = await readPages(client, { spaceId: at.spaceId, changeRequestId: at.changeRequestId });
  const site = await unwrap(client.GET('/orgs/{organizationId}/sites/{siteId}', { params: { path: { organizationId: at.organizationId, siteId: at.siteId } } }));
  const search = await unwrap(client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: at.spaceId }, query: { query: 'zebracorn', limit: 10 } } }));
  return { organization, members, space, revision, pages, changeRequest, crPages, site, search };
}

(process.env.TEST_DATABASE_URL ? describe : describe.skip)('copy-database', () => {
  it('copies a SQLite install into an empty PostgreSQL database: same ids, content, files, tokens and search; refuses a non-empty target', async () => {
    const source = await startTestServer({ dialect: 'sqlite', env: { QUIRE_BLOB_STORE: 'database', QUIRE_PUBLIC_URL: PUBLIC_URL } });
    const target = createTestDatabaseUrl('postgres');
    let moved: Awaited<ReturnType<typeof startLoggedServer>> | undefined;
    try {
      const f = contentFixtures(() => source);
      const org = await newOrg(source, 'Moving organization');
      const editor = await newMember(source, org, 'edit');
      const space = await createSpace(org, { title: 'Handbook' });
      const fileText = 'bytes of an uploaded file, kept in the database';
      const update = await f.editMain(org, space.id, [
        { operation: 'insert_page', title: 'Guide', document: md('# Guide\n\nRun the zebracorn installer.'), ref: 'guide' },
        { operation: 'insert_page', title: 'Install', document: md('Step **one**.'), into: 'guide', ref: 'install' },
        textFile('notes.txt', fileText),
      ]);
      // A change request still open, with an edit of its own.
      const cr = await f.createCr(editor.client, space.id);
      await f.editCr(editor.client, space.id, cr.id, [{ operation: 'update_page', page: f.pageOf(update, 'install'), document: md('Step **two**.') }]);
      const site = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId: org.organizationId } }, body: { title: 'Docs', spaces: [space.id] } as never }));
      await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: { path: { organizationId: org.organizationId, siteId: site.id } } }));
      await f.runJobs();
      const at = { organizationId: org.organizationId, spaceId: space.id, changeRequestId: cr.id, siteId: site.id };
      const before = await readAll(org.client, at);
      expect(before.search.items.length).toBeGreaterThan(0);
      const file = before.revision.files.find((item) => item.name === 'notes.txt')!;

      const copied = await run(builtEntry('admin'), ['copy-database', '--to', target.url, '--json'], { DATABASE_URL: source.databaseUrl, NODE_ENV: 'production' });
      expect(copied.code, copied.stderr).toBe(0);
      expect(copied.stdout.trim().split('\n')).toHaveLength(1);
      const result = JSON.parse(copied.stdout) as { tables: number; rows: number };
      expect(Object.keys(result).sort()).toEqual(['rows', 'tables']);
      expect(result.tables).toBeGreaterThan(40);
      expect(result.rows).toBeGreaterThan(30);
      expect(copied.stderr).toContain(`copy-database: ${result.tables}/${result.tables} tables copied, ${result.rows} rows`);

      // A server on the copy (file bytes in the database, as on the source) answers as the source did.
      moved = await startLoggedServer(target.url, { QUIRE_PUBLIC_URL: PUBLIC_URL, QUIRE_BLOB_STORE: 'database', QUIRE_RUN_JOBS: 'false', LOG_LEVEL: 'warn' });
      const client = (token: string) => createQuireClient({ baseUrl: moved!.base, token, retry: false });
      const after = await readAll(client(org.token), at);
      expect(after).toEqual(before);
      // The editor's token works too, with the editor's rights.
      const me = await unwrap(client(editor.token).GET('/user'));
      expect(me.id).toBe(editor.userId);
      // The file's bytes, at the download address the source gave.
      const download = await fetch(file.downloadURL.replace(PUBLIC_URL, moved.base));
      expect(download.status).toBe(200);
      expect(await download.text()).toBe(fileText);
      // Writes go on where the copy left off.
      const second = await unwrap(client(org.token).POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: org.organizationId } }, body: { title: 'After the move' } }));
      expect(second.title).toBe('After the move');
      const written = await readAll(client(org.token), at);

      // A second copy into the now-used database is refused, and changes nothing.
      const again = await run(builtEntry('admin'), ['copy-database', '--to', target.url, '--json'], { DATABASE_URL: source.databaseUrl, NODE_ENV: 'production' });
      expect(again.code).toBe(1);
      expect(again.stdout).toBe('');
      expect(again.stderr).toMatch(/quire-admin: the target database is not empty \(.+ rows\): copy into a new, empty database or schema/);
      expect(await readAll(client(org.token), at)).toEqual(written);

      // A target that is not PostgreSQL is refused before anything is read.
      const wrong = await run(builtEntry('admin'), ['copy-database', '--to', 'sqlite:/tmp/elsewhere.db', '--json'], { DATABASE_URL: source.databaseUrl, NODE_ENV: 'production' });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('quire-admin: the target (--to) must be a postgres:// URL');
    } finally {
      if (moved) await moved.stop();
      moved?.dispose();
      await source.close();
      await target.drop();
    }
  }, 300_000);

  it('leaves the target empty when the copy fails part way, so that it can be run again once the cause is fixed', async () => {
    const source = createTestDatabaseUrl('sqlite');
    const target = createTestDatabaseUrl('postgres');
    const admin = (args: string[]) => run(builtEntry('admin'), args, { DATABASE_URL: source.url, NODE_ENV: 'production' });
    try {
      const made = await admin(['bootstrap', '--org', 'Half moved', '--email', 'half@example.com', '--json']);
      expect(made.code, made.stderr).toBe(0);
      // SQLite keeps what its column type does not fit (a loose type affinity); PostgreSQL refuses it. The
      // memberships are copied after the users and organizations they refer to, so the copy fails part way.
      const file = (parseDatabaseUrl(source.url) as { file: string }).file;
      const sqlite = new BetterSqlite3(file);
      onTestFinished(() => { if (sqlite.open) sqlite.close(); });
      sqlite.prepare(`update organization_members set sso = 'not a number'`).run();

      const failed = await admin(['copy-database', '--to', target.url, '--json']);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe('');
      expect(failed.stderr).toMatch(/quire-admin: .*integer/);
      const handle = await openDatabase(parseDatabaseUrl(target.url));
      try {
        const counted = async () => {
          const { rows } = await sql<{ users: string; organizations: string }>`select (select count(*) from users) as users, (select count(*) from organizations) as organizations`.execute(handle.db);
          return rows[0];
        };
        expect(await counted()).toEqual({ users: '0', organizations: '0' });

        sqlite.prepare(`update organization_members set sso = 0`).run();
        const copied = await admin(['copy-database', '--to', target.url, '--json']);
        expect(copied.code, copied.stderr).toBe(0);
        expect(await counted()).toEqual({ users: '1', organizations: '1' });
        expect(JSON.parse(copied.stdout)).toMatchObject({ rows: expect.any(Number) as number });
      } finally {
        await handle.close();
      }
    } finally {
      await source.drop();
      await target.drop();
    }
  }, 120_000);
});
