import { afterAll, beforeAll, expect, it } from 'vitest';
import { createQuireClient, unwrap } from '@quire/client';
import { builtEntry, run } from './built.js';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from './dialects.js';
import { startTestServer, type TestServer } from './server.js';

describeEachDialect('admin command line', (dialect) => {
  let database: TestDatabaseUrl;
  let server: TestServer;
  const admin = (...args: string[]) => run(builtEntry('admin'), args, { DATABASE_URL: database.url, LOG_LEVEL: 'info', NODE_ENV: 'production' });

  beforeAll(async () => {
    database = createTestDatabaseUrl(dialect);
    // The server runs on the same database the whole time: the command line must work alongside it.
    server = await startTestServer({ dialect, env: { DATABASE_URL: database.url } });
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it('bootstrap prints exactly one JSON object whose token works against the running server', async () => {
    const result = await admin('bootstrap', '--org', 'Acme Docs', '--email', 'Founder@Example.com', '--name', 'Ada Founder', '--json');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const created = JSON.parse(result.stdout) as { organizationId: string; userId: string; token: string };
    expect(Object.keys(created).sort()).toEqual(['organizationId', 'token', 'userId']);
    expect(created.token).toMatch(/^qk_[A-Za-z0-9_-]{43}$/);

    const client = createQuireClient({ baseUrl: server.url, token: created.token, retry: false });
    expect(await unwrap(client.GET('/user'))).toMatchObject({ id: created.userId, displayName: 'Ada Founder', email: 'founder@example.com' });
    const org = await unwrap(client.GET('/orgs/{organizationId}', { params: { path: { organizationId: created.organizationId } } }));
    expect(org).toMatchObject({ title: 'Acme Docs', permissions: { admin: true } });
  });

  it('add-member creates the user with the role (guest = no role) and create-token issues another token', async () => {
    const bootstrapped = await admin('bootstrap', '--org', 'Team', '--email', 'owner@example.com', '--json');
    expect(bootstrapped.code, bootstrapped.stderr).toBe(0);
    const owner = JSON.parse(bootstrapped.stdout) as { organizationId: string };
    const member = await admin('add-member', '--org', owner.organizationId, '--email', 'writer@example.com', '--role', 'edit', '--json');
    expect(member.code, member.stderr).toBe(0);
    const { organizationId, userId, token } = JSON.parse(member.stdout) as { organizationId: string; userId: string; token: string };
    expect(Object.keys(JSON.parse(member.stdout) as object).sort()).toEqual(['organizationId', 'token', 'userId']);
    expect(organizationId).toBe(owner.organizationId);
    const client = createQuireClient({ baseUrl: server.url, token, retry: false });
    const org = await unwrap(client.GET('/orgs/{organizationId}', { params: { path: { organizationId: owner.organizationId } } }));
    expect(org.permissions).toMatchObject({ admin: false, createContent: false, listMembers: true });

    const added = await admin('add-member', '--org', owner.organizationId, '--email', 'visitor@example.com', '--role', 'guest', '--json');
    expect(added.code, added.stderr).toBe(0);
    const guest = JSON.parse(added.stdout) as { token: string };
    const asGuest = createQuireClient({ baseUrl: server.url, token: guest.token, retry: false });
    expect((await unwrap(asGuest.GET('/orgs/{organizationId}', { params: { path: { organizationId: owner.organizationId } } }))).permissions.listMembers).toBe(false);

    const again = await admin('create-token', '--email', 'WRITER@example.com', '--json');
    expect(again.code).toBe(0);
    const second = JSON.parse(again.stdout) as { userId: string; token: string };
    expect(second.userId).toBe(userId);
    expect(second.token).not.toBe(token);
    expect((await createQuireClient({ baseUrl: server.url, token: second.token, retry: false }).GET('/user')).response.status).toBe(200);
  });

  it('refuses bad arguments with a message on stderr, nothing on stdout and a non-zero exit', async () => {
    const cases = [
      ['bootstrap', '--email', 'a@example.com', '--json'],
      ['bootstrap', '--org', 'X', '--email', 'not-an-email', '--json'],
      ['add-member', '--org', 'nope', '--email', 'a@example.com', '--role', 'owner', '--json'],
      ['add-member', '--org', 'doesNotExist', '--email', 'a@example.com', '--role', 'read', '--json'],
      ['create-token', '--email', 'nobody@example.com', '--json'],
      ['frobnicate'],
    ];
    for (const args of cases) {
      const result = await admin(...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr.trim().length, args.join(' ')).toBeGreaterThan(0);
    }
  });
  it('verify-integration marks a published integration verified (and --revoke unmarks it), printing one JSON object', async () => {
    const owner = JSON.parse((await admin('bootstrap', '--org', 'Publisher', '--email', 'publisher@example.com', '--json')).stdout) as { organizationId: string; token: string };
    const client = createQuireClient({ baseUrl: server.url, token: owner.token, retry: false });
    const name = `verified-${dialect}`;
    await unwrap(client.POST('/integrations/{integrationName}', { params: { path: { integrationName: name } }, body: { organization: owner.organizationId, title: 'Verified', description: 'd', scopes: [], script: 'x', runtime: 'v1' } }));
    const verified = await admin('verify-integration', '--name', name, '--json');
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(verified.stdout)).toEqual({ name, verified: true });
    expect((await unwrap(client.GET('/integrations/{integrationName}', { params: { path: { integrationName: name } } }))).verified).toBe(true);
    expect(JSON.parse((await admin('verify-integration', '--name', name, '--revoke', '--json')).stdout)).toEqual({ name, verified: false });
    expect((await unwrap(client.GET('/integrations/{integrationName}', { params: { path: { integrationName: name } } }))).verified).toBe(false);
    const missing = await admin('verify-integration', '--name', 'no-such-integration', '--json');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
  });
}, { timeout: 120_000 });
