import { createQuireClient, unwrap, type QuireClient } from '@quire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { addMember, bootstrap } from '../src/services/admin-service.js';
import { setUserPasswordByEmail } from '../src/services/sign-in-service.js';
import { startLoggedServer, type LoggedServer } from './built.js';
import { contentFixtures, md } from './content-fixtures.js';
import { createTestDatabaseUrl } from './dialects.js';

/*
 * Caches stay true across processes (issue 26; apps/server/README.md, Caches): two built server processes on
 * one PostgreSQL database. Each case warms process B's caches first (its reach of spaces, its in-process
 * reader's open-site lookup and rendered page, its view of a session), makes a change that narrows access
 * through process A, and asks B again at once: the very next request is refused. Then B's LISTEN connection is
 * terminated, and changes are still seen. PostgreSQL only: on SQLite there is one process. Needs a build.
 */

const PASSWORD = 'caches across processes 4471';

describe.skipIf(!process.env.TEST_DATABASE_URL)('caches across processes [postgres]', () => {
  let handle: DatabaseHandle;
  let a: LoggedServer;
  let b: LoggedServer;
  let organizationId: string;
  let adminEmail: string;
  /** The admin's client through each process. */
  let adminA: QuireClient;
  let adminB: QuireClient;
  const client = (server: LoggedServer, token: string) => createQuireClient({ baseUrl: server.base, token, retry: false });
  const page = (server: LoggedServer, path: string, cookie?: string) => fetch(server.base + path, { redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });

  beforeAll(async () => {
    const target = createTestDatabaseUrl('postgres');
    handle = await openDatabase(parseDatabaseUrl(target.url));
    await migrateToLatest(handle);
    const context = { db: handle.db, dialect: handle.dialect, logger: createLogger('silent') };
    adminEmail = `admin-${Date.now()}@example.com`;
    const owner = await bootstrap(context, { organizationTitle: 'Caches across processes', email: adminEmail });
    organizationId = owner.organizationId;
    await setUserPasswordByEmail(context, adminEmail, PASSWORD);
    // One after the other: starting together (migrations once) is the processes suite's subject, not this one's.
    a = await startLoggedServer(target.url);
    b = await startLoggedServer(target.url);
    adminA = client(a, owner.token);
    adminB = client(b, owner.token);
  }, 180_000);

  afterAll(async () => {
    a?.dispose();
    b?.dispose();
    await handle?.close();
  });

  async function member(role: 'create' | 'edit' | 'read') {
    const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
    const added = await addMember({ db: handle.db, dialect: handle.dialect, logger: createLogger('silent') }, { organizationId, email, role });
    return { userId: added.userId, token: added.token };
  }

  /** A site showing one space with one page, published with `visibility`; answers its id and reader path. */
  async function publishedSite(visibility: 'public' | 'share-link') {
    const space = await unwrap(adminA.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId } }, body: { title: `Space for ${visibility}` } }));
    await contentFixtures(() => undefined as never).editMain({ organizationId, client: adminA } as never, space.id, [
      { operation: 'insert_page', title: 'Welcome', document: md('The cache-coherent okapi handbook.') },
    ]);
    const site = await unwrap(adminA.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: `Docs ${visibility}`, visibility, spaces: [space.id] } }));
    const published = await unwrap(adminA.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: { path: { organizationId, siteId: site.id } } }));
    return { siteId: site.id, path: published.urls.published ? new URL(published.urls.published).pathname : '' };
  }

  /** Reads a public site's page through B twice: the second answer comes from B's kept lookup and page. */
  async function warmReader(path: string) {
    for (let round = 0; round < 2; round++) {
      const answer = await page(b, path);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('okapi handbook');
    }
  }

  const unpublish = (siteId: string) => unwrap(adminA.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: { path: { organizationId, siteId } } }));
  const publish = (siteId: string) => unwrap(adminA.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: { path: { organizationId, siteId } } }));

  it('a member removed through A is refused by B at once', async () => {
    const removed = await member('read');
    const throughB = client(b, removed.token);
    expect((await throughB.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId } } })).response.status).toBe(200);
    await unwrap(adminA.DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId, userId: removed.userId } } }));
    const after = await throughB.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId } } });
    expect(after.response.status).toBe(404);
  });

  it('a role lowered through A is refused by B at once', async () => {
    const creator = await member('create');
    const throughB = client(b, creator.token);
    const create = () => throughB.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId } }, body: { title: 'Made through B' } });
    expect((await create()).response.status).toBe(201);
    await unwrap(adminA.PATCH('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId, userId: creator.userId } }, body: { role: 'read' } }));
    expect((await create()).response.status).toBe(403);
  });

  it('a session ended or revoked through A is refused by B at once', async () => {
    const signIn = async () => {
      const response = await fetch(`${a.base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: adminEmail, password: PASSWORD }) });
      expect(response.status).toBe(200);
      const secret = /^quire_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
      const { csrfToken } = (await response.json()) as { csrfToken: string };
      return { secret, csrfToken };
    };
    const session = (server: LoggedServer, signedIn: { secret: string; csrfToken: string }) => createQuireClient({
      baseUrl: server.base, retry: false, headers: { cookie: `quire_session=${signedIn.secret}`, origin: server.base, 'x-csrf-token': signedIn.csrfToken },
    });
    const revoked = await signIn();
    const ended = await signIn();
    for (const signedIn of [revoked, ended]) expect((await session(b, signedIn).GET('/user')).response.status).toBe(200);

    // Revoked from another session (deleteUserSession), through A.
    const sessions = await unwrap(session(a, ended).GET('/user/sessions'));
    const revokedId = sessions.items.find((item) => !item.current)!.id;
    await unwrap(session(a, ended).DELETE('/user/sessions/{sessionId}', { params: { path: { sessionId: revokedId } } }));
    expect((await session(b, revoked).GET('/user')).response.status).toBe(401);

    // Ended by signing out, through A.
    expect((await session(a, ended).POST('/auth/sign-out')).response.status).toBe(204);
    expect((await session(b, ended).GET('/user')).response.status).toBe(401);
  });

  it('a share link revoked through A closes its site on B at once', async () => {
    const site = await publishedSite('share-link');
    const link = await unwrap(adminA.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: { path: { organizationId, siteId: site.siteId } }, body: { name: 'Partners' } }));
    const linkUrl = new URL(link.urls.published!);
    const opened = await page(b, linkUrl.pathname + linkUrl.search);
    expect(opened.status).toBe(303);
    const cookie = /^[^;]+/.exec(opened.headers.get('set-cookie') ?? '')![0];
    for (let round = 0; round < 2; round++) expect((await page(b, linkUrl.pathname, cookie)).status).toBe(200);
    await unwrap(adminA.DELETE('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: { path: { organizationId, siteId: site.siteId, shareLinkId: link.id } } }));
    expect((await page(b, linkUrl.pathname, cookie)).status).toBe(404);
  });

  it('a site unpublished through A is closed by B\'s in-process reader at once, its page cached there or not', async () => {
    const site = await publishedSite('public');
    await warmReader(site.path);
    await unpublish(site.siteId);
    expect((await page(b, site.path)).status).toBe(404);
  });

  it('after B\'s LISTEN connection is terminated, changes are still seen: while it reconnects, and once it listens again', async () => {
    const site = await publishedSite('public');
    const listenerOfB = async () => (await sql<{ pid: number }>`select pid from pg_stat_activity where application_name like ${`quire-changes-${b.child.pid}-%`}`.execute(handle.db)).rows;
    const [first] = await listenerOfB();
    expect(first).toBeDefined();

    // Terminated, then a change at once: B either still reconnects (and reuses nothing) or listens again (and forgot everything).
    await warmReader(site.path);
    await sql`select pg_terminate_backend(${first!.pid})`.execute(handle.db);
    await unpublish(site.siteId);
    expect((await page(b, site.path)).status).toBe(404);

    // Listening again on a new connection (B logs it at debug level): warmed anew, changed through A, refused by B at once.
    const listening = () => b.log().split('change listener listening').length - 1;
    const deadline = Date.now() + 20_000;
    while (listening() < 2) {
      if (Date.now() > deadline) throw new Error(`B's listener did not listen again: ${b.log().slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [now] = await listenerOfB();
    expect(now?.pid).not.toBe(first!.pid);
    await publish(site.siteId);
    await warmReader(site.path);
    await unpublish(site.siteId);
    expect((await page(b, site.path)).status).toBe(404);
    expect(b.log()).toContain('change listener disconnected');
  });
});
