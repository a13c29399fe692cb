import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { setVerified } from '../src/services/integration-service.js';
import { describeEachDialect } from './dialects.js';
import { expectError, organizationWithPeople, useTestServer } from './helpers.js';
import { sendVerbatimPath } from './verbatim-path.js';

// A 1x1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const SECRET = 'sk_live_do_not_leak_4f9a8b7c';

describeEachDialect('integrations', (dialect) => {
  const server = useTestServer({ dialect });
  const publish = (client: QuireClient, integrationName: string, body: Record<string, unknown>) =>
    client.POST('/integrations/{integrationName}', { params: { path: { integrationName } }, body: body as never });
  const get = (client: QuireClient, integrationName: string) => client.GET('/integrations/{integrationName}', { params: { path: { integrationName } } });
  const list = (client: QuireClient, query: Record<string, unknown> = {}) => unwrap(client.GET('/integrations', { params: { query: { limit: 1000, ...query } as never } }));
  // Answers are addressed to the public URL; the test reaches the same server at its own address.
  const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, server.url);
  const fetchAsset = async (url: string) => {
    const redirect = await fetch(local(url), { redirect: 'manual' });
    if (redirect.status !== 302) return redirect;
    return fetch(local(redirect.headers.get('location')!));
  };
  const base = (organization: string) => ({ organization, title: 'Slack alerts', description: 'Posts to Slack', scopes: ['space:content:read'], script: 'export default {}' });

  describe('publishIntegration', () => {
    it('publishes versions 1, 2... whose files are served from urls.assets and whose secrets are never answered', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Integrations org');
      const name = `slack-${Date.now()}`;
      const first = await unwrap(publish(admin.client, name, { ...base(organizationId), icon: PNG, previewImages: [PNG, PNG], secrets: { API_KEY: SECRET }, categories: ['collaboration'],
        blocks: [{ id: 'message', title: 'Slack message', urlUnfurl: ['https://*.slack.com/archives/*'] }], externalLinks: [{ url: 'https://example.com', label: 'Home' }] }));
      expect(first).toMatchObject({ object: 'integration', name, version: 1, title: 'Slack alerts', visibility: 'private', target: 'all', verified: false, permissions: { admin: true }, owner: { id: organizationId } });
      expect(first.previewImages).toHaveLength(2);
      expect(JSON.stringify(first)).not.toContain(SECRET);
      const icon = await fetchAsset(first.urls.icon!);
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await icon.arrayBuffer()).toString('base64')).toBe(PNG);
      expect(await (await fetchAsset(`${first.urls.assets}script.js`)).text()).toBe('export default {}');
      expect((await fetchAsset(first.urls.assets.replace(/\/[^/]+\/$/, '/wrongkey0000000000000000000000/') + 'script.js')).status).toBe(404);

      const second = await unwrap(publish(admin.client, name, { ...base(organizationId), title: 'Slack v2', visibility: 'public', script: 'export default { v: 2 }' }));
      expect(second).toMatchObject({ version: 2, title: 'Slack v2', visibility: 'public', previewImages: [] });
      expect(second.urls.icon).toBeUndefined();
      expect(await (await fetchAsset(`${second.urls.assets}script.js`)).text()).toBe('export default { v: 2 }');
      expect((await unwrap(get(admin.client, name))).version).toBe(2);

      const rows = await server.db.selectFrom('integration_versions').selectAll().where('name', '=', name).execute();
      expect(rows).toHaveLength(2);
      expect(JSON.stringify(rows)).not.toContain(SECRET);
      expect(rows.find((row) => row.version === 1)!.secrets).toMatch(/^v1\./);
    });


    it('keeps a name with its first owner: 409 for another organization, 403 below admin, 404 for an unknown organization', async () => {
      const { organizationId, admin, people } = await organizationWithPeople(server, 'Owner org', { creator: 'create' });
      const other = await organizationWithPeople(server, 'Other org');
      const name = `owned-${Date.now()}`;
      await unwrap(publish(admin.client, name, base(organizationId)));
      expectError(await publish(other.admin.client, name, base(other.organizationId)), 409);
      expectError(await publish(people.creator!.client, name, base(organizationId)), 403);
      expectError(await publish(other.admin.client, `${name}-x`, base(organizationId)), 404);
      expectError(await publish(admin.client, `${name}-y`, base('noSuchOrganization')), 404);
      expect((await unwrap(get(admin.client, name))).version).toBe(1);
    });


    it('enforces every limit with 400, and checks that images are images', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Limits org');
      const name = `limits-${Date.now()}`;
      const bad: Array<Record<string, unknown>> = [
        { title: 'x' }, { title: 'x'.repeat(31) }, { description: 'd'.repeat(101) }, { summary: 's'.repeat(2049) }, { previewImages: [PNG, PNG, PNG, PNG] },
        { icon: Buffer.from('not an image at all').toString('base64') }, { previewImages: ['%%%not-base64'] }, { externalLinks: Array.from({ length: 6 }, () => ({ url: 'https://e.com', label: 'l' })) },
        { blocks: [{ id: 'b', title: 'x' }] }, { blocks: [{ id: 'b', title: 'Block' }, { id: 'b', title: 'Block 2' }] }, { contentSources: [{ id: 'c', title: 'C', configuration: { componentId: 'x' } }] },
        { scopes: ['not:a:scope'] }, { secrets: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`K${index}`, 'v'])) }, { script: '' }, { visibility: 'secret' },
        { configurations: { account: { properties: { a: { type: 'date' } } } } },
      ];
      for (const change of bad) expect((await publish(admin.client, name, { ...base(organizationId), ...change })).response.status, JSON.stringify(change).slice(0, 60)).toBe(400);
      expectError(await publish(admin.client, 'bad name!', base(organizationId)), 400);
      // The script may be larger than other bodies are allowed to be (1 MB by default), up to 5 MB.
      const large = await unwrap(publish(admin.client, `${name}-large`, { ...base(organizationId), script: `// ${'x'.repeat(2 * 1024 * 1024)}` }));
      expect(large.version).toBe(1);
      expectError(await publish(admin.client, `${name}-huge`, { ...base(organizationId), script: 'x'.repeat(5 * 1024 * 1024 + 1) }), 400);
      expectError(await get(admin.client, name), 404);
    });

    it('refuses names that path-normalising clients cannot address (`.`, `..`, slashes, percent-encodings, control characters) with 400, storing nothing', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Names org');
      for (const segment of ['..', '.', '%2E%2E', '%2e', '.%2E', 'a%2Fb', 'a%5Cb', '%252E%252E', 'a%00b', 'a%0Ab', 'a%7Fb']) {
        const answer = await sendVerbatimPath(server.url, 'POST', `/v1/integrations/${segment}`, { token: admin.token, body: base(organizationId) });
        expect(answer.status, segment).toBe(400);
        expect(answer.json.error?.code, segment).toBe(400);
      }
      expect((await list(admin.client, { owner: organizationId })).items).toEqual([]);
      // Dots inside a name, which the public API accepts, still make names.
      const stamp = Date.now();
      for (const name of [`a.b-${stamp}`, `...-${stamp}`, `.hidden-${stamp}`, '...']) expect((await unwrap(publish(admin.client, name, base(organizationId)))).name).toBe(name);
    });

    it('gives each of 20 publishes of new versions at the same time by the owner its own version, 2 to 21', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Racing publisher org');
      const name = `racing-${Date.now()}`;
      await unwrap(publish(admin.client, name, base(organizationId)));
      const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => publish(admin.client, name, { ...base(organizationId), title: `Racing ${index}`, secrets: { KEY: `secret-${index}` } })));
      expect(answers.map((answer) => answer.response.status)).toEqual(Array.from({ length: 20 }, () => 200));
      expect(answers.map((answer) => answer.data!.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 2));
      const latest = await unwrap(get(admin.client, name));
      expect(latest.version).toBe(21);
      // The latest version's definition is the one that committed last: the answer that says version 21.
      expect(latest.title).toBe(answers.find((answer) => answer.data!.version === 21)!.data!.title);
    });

    it('gives a new name published by two organizations at once to exactly one of them, the other 409', async () => {
      const first = await organizationWithPeople(server, 'First racer org');
      const second = await organizationWithPeople(server, 'Second racer org');
      const name = `contested-${Date.now()}`;
      const publicBody = (organization: string) => ({ ...base(organization), visibility: 'public' });
      const answers = await Promise.all([publish(first.admin.client, name, publicBody(first.organizationId)), publish(second.admin.client, name, publicBody(second.organizationId))]);
      expect(answers.map((answer) => answer.response.status).sort()).toEqual([200, 409]);
      const winner = answers.find((answer) => answer.response.status === 200)!.data!;
      expect((await unwrap(get(first.admin.client, name))).owner.id).toBe(winner.owner.id);
      expect(winner.version).toBe(1);
    });

  });

  describe('listIntegrations', () => {
    it('lists with every filter; private integrations only for their owner, unlisted ones only by name', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Lister org');
      const outsider = await organizationWithPeople(server, 'Outsider org');
      const stamp = Date.now();
      await unwrap(publish(admin.client, `figma-${stamp}`, { ...base(organizationId), title: 'Figma embeds', visibility: 'public', target: 'space', categories: ['content'], scopes: ['space:content:read', 'space:content:write'],
        blocks: [{ id: 'embed', title: 'Figma file', urlUnfurl: ['https://www.figma.com/file/*'] }] }));
      await unwrap(publish(admin.client, `stats-${stamp}`, { ...base(organizationId), title: 'Stats', visibility: 'unlisted', target: 'site', categories: ['analytics'],
        contentSources: [{ id: 'src', title: 'Source', configuration: { componentId: 'config' } }] }));
      await unwrap(publish(admin.client, `secret-${stamp}`, { ...base(organizationId), title: 'Internal', visibility: 'private', target: 'all' }));
      const names = async (client: QuireClient, query: Record<string, unknown>) => (await list(client, { owner: organizationId, ...query })).items.map((item) => item.name).sort();
      expect(await names(admin.client, {})).toEqual([`figma-${stamp}`, `secret-${stamp}`, `stats-${stamp}`]);
      expect(await names(outsider.admin.client, {})).toEqual([`figma-${stamp}`]);
      expect((await unwrap(get(outsider.admin.client, `stats-${stamp}`))).permissions.admin).toBe(false);
      expectError(await get(outsider.admin.client, `secret-${stamp}`), 404);
      expect(await names(admin.client, { search: 'FIGMA' })).toEqual([`figma-${stamp}`]);
      expect(await names(admin.client, { category: 'analytics' })).toEqual([`stats-${stamp}`]);
      expect(await names(admin.client, { blockDomain: 'figma.com' })).toEqual([`figma-${stamp}`]);
      expect(await names(admin.client, { blocks: true })).toEqual([`figma-${stamp}`]);
      expect(await names(admin.client, { blocks: false })).toEqual([`secret-${stamp}`, `stats-${stamp}`]);
      expect(await names(admin.client, { contentSources: true })).toEqual([`stats-${stamp}`]);
      expect(await names(admin.client, { scope: 'space:content:write' })).toEqual([`figma-${stamp}`]);
      expect(await names(admin.client, { target: 'site' })).toEqual([`secret-${stamp}`, `stats-${stamp}`]);
      const page = await list(admin.client, { owner: organizationId, limit: 2 });
      expect(page.items).toHaveLength(2);
      expect((await list(admin.client, { owner: organizationId, limit: 2, page: page.next!.page })).items).toHaveLength(1);
      expectError(await admin.client.GET('/integrations', { params: { query: { blockDomain: 'bad domain' } } }), 400);
    });

  });

  describe('getIntegrationByName', () => {
    it('answers the latest version to those who may see it: public and unlisted ones to anyone, private ones to their owner', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Getter org');
      const outsider = await organizationWithPeople(server, 'Outsider org');
      const stamp = Date.now();
      for (const visibility of ['public', 'unlisted', 'private']) await unwrap(publish(admin.client, `${visibility}-${stamp}`, { ...base(organizationId), visibility }));
      await unwrap(publish(admin.client, `public-${stamp}`, { ...base(organizationId), visibility: 'public', title: 'Slack v2' }));
      expect(await unwrap(get(outsider.admin.client, `public-${stamp}`))).toMatchObject({ name: `public-${stamp}`, version: 2, title: 'Slack v2', permissions: { admin: false } });
      expect((await unwrap(get(outsider.admin.client, `unlisted-${stamp}`))).visibility).toBe('unlisted');
      expect((await unwrap(get(admin.client, `private-${stamp}`))).permissions.admin).toBe(true);
      expectError(await get(outsider.admin.client, `private-${stamp}`), 404);
      expectError(await get(admin.client, `missing-${stamp}`), 404);
    });
  });

  describe('unpublishIntegration', () => {
    it('unpublishes for admins of the owner (204, also when absent), 403 for others who see it; verified only by the operator', async () => {
      const { organizationId, admin, people } = await organizationWithPeople(server, 'Unpublish org', { editor: 'edit' });
      const outsider = await organizationWithPeople(server, 'Outsider org');
      const name = `gone-${Date.now()}`;
      await unwrap(publish(admin.client, name, { ...base(organizationId), visibility: 'public' }));
      expect(await setVerified(server.running.services, name, true)).toEqual({ name, verified: true });
      expect((await unwrap(get(outsider.admin.client, name))).verified).toBe(true);
      expect((await unwrap(publish(admin.client, name, base(organizationId)))).verified).toBe(true);
      const remove = (client: QuireClient, integrationName: string) => client.DELETE('/integrations/{integrationName}', { params: { path: { integrationName } } });
      expectError(await remove(outsider.admin.client, name), 403);
      expectError(await remove(people.editor!.client, name), 403);
      expect((await remove(admin.client, name)).response.status).toBe(204);
      expect((await remove(admin.client, name)).response.status).toBe(204);
      expectError(await get(admin.client, name), 404);
      // The name is free again.
      expect((await unwrap(publish(outsider.admin.client, name, base(outsider.organizationId)))).version).toBe(1);
    });
  });
});
