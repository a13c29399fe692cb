import { unwrap, type QuireClient } from '@quire/client';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../src/services/password-hashing.js';
import { upsertUserPasswordHash } from '../src/stores/user-password-store.js';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * Issue 25: the preview of an unsaved customization (previewSiteCustomizationById, and the reader rendering a
 * page with it for the member who posts it) and images uploaded for a site's logo and icon
 * (uploadSiteCustomizationImage, getSiteCustomizationImageById, and the reader's `~images/<id>`).
 */

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>').toString('base64');
const PASSWORD = 'correct horse battery staple 42';

/** A PNG header claiming `width`×`height` pixels (the size check reads the header only). */
function pngOfSize(width: number, height: number): string {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type, 'ascii'), data, Buffer.alloc(4)]);
  };
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.alloc(16))), chunk('IEND', Buffer.alloc(0))]).toString('base64');
}

describeEachDialect('site customization previews and images', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  async function world(visibility: 'public' | 'share-link' = 'public') {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Branded org', { reader: 'read' });
    const org = { organizationId, client: admin.client, token: admin.token };
    const space = await createSpace(org, { title: 'Guides' });
    await f.editMain(org as never, space.id, [{ operation: 'insert_page', title: 'Start', document: md('Hello readers.'), ref: 'start' }]);
    const site = await unwrap(admin.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: 'Docs', visibility, spaces: [space.id] } as never }));
    const sitePath = { path: { organizationId, siteId: site.id } };
    const published = await unwrap(admin.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath }));
    const siteSpaces = await unwrap(admin.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: sitePath }));
    const other = await newOrg(server, 'Other org');
    return { organizationId, admin, reader: people.reader!.client, site, sitePath, address: new URL(published.urls.published!).pathname, siteSpace: siteSpaces.items[0]!, other };
  }

  /** The admin's browser session: its cookie secret and CSRF token, as the app holds them. */
  async function session(person: { userId: string; email: string }) {
    await upsertUserPasswordHash(server.db, person.userId, await hashPassword(PASSWORD), new Date().toISOString());
    const response = await fetch(`${server.url}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: person.email, password: PASSWORD }) });
    expect(response.status).toBe(200);
    const secret = /^quire_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
    const { csrfToken } = (await response.json()) as { csrfToken: string };
    return { cookie: `quire_session=${secret}`, csrfToken };
  }

  const preview = (client: QuireClient, sitePath: { path: { organizationId: string; siteId: string } }, body: Record<string, unknown>, siteSpace?: string) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/customization/preview', { params: { ...sitePath, ...(siteSpace ? { query: { siteSpace } } : {}) }, body: body as never });
  const upload = (client: QuireClient, sitePath: { path: { organizationId: string; siteId: string } }, body: Record<string, unknown>) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/customization/images', { params: sitePath, body: body as never });
  /** An address the API answered (under the test server's nominal public URL), on the test server. */
  const local = (address: string) => server.url + new URL(address).pathname + new URL(address).search;
  const postPreview = (path: string, fields: Record<string, string>, headers: Record<string, string>) =>
    fetch(server.url + path, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });

  describe('previewSiteCustomizationById', () => {
    it('answers the customization the body would give, checked as saving checks it, and stores nothing', async () => {
      const w = await world();
      const before = await unwrap(w.admin.client.GET('/orgs/{organizationId}/sites/{siteId}/customization', { params: w.sitePath }));
      const answer = await unwrap(preview(w.admin.client, w.sitePath, { title: 'Draft title', styling: { primaryColor: { light: '#aa0000', dark: '#00aa00' } } }));
      expect(answer).toMatchObject({ title: 'Draft title', styling: { primaryColor: { light: '#aa0000', dark: '#00aa00' }, theme: 'clean' }, themes: { default: 'light' } });
      expect(await unwrap(w.admin.client.GET('/orgs/{organizationId}/sites/{siteId}/customization', { params: w.sitePath }))).toEqual(before);
      const published = await unwrap(w.admin.client.GET('/orgs/{organizationId}/sites/{siteId}/published', { params: w.sitePath }));
      expect(published.customizations.site.title).toBeUndefined();

      // A site space's answer is the body under that site space's own overrides.
      await unwrap(w.admin.client.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', { params: { path: { ...w.sitePath.path, siteSpaceId: w.siteSpace.id } }, body: { title: 'Space title' } as never }));
      expect(await unwrap(preview(w.admin.client, w.sitePath, { title: 'Draft title', footer: { copyright: 'Draft ©' } }, w.siteSpace.id))).toMatchObject({ title: 'Space title', footer: { copyright: 'Draft ©' } });
    });

    it('refuses bad drafts with 400, members below admin with 403, and others with 404', async () => {
      const w = await world();
      const foreign = await createSpace(w.other, { title: 'Foreign' });
      expectError(await preview(w.admin.client, w.sitePath, { header: { links: [{ title: 'Out', to: { kind: 'space', space: foreign.id } }] } }), 400);
      expectError(await preview(w.admin.client, w.sitePath, { title: 42 }), 400);
      expectError(await preview(w.admin.client, w.sitePath, { title: 'xy' }, 'noSuchSiteSpace'), 404);
      expectError(await preview(w.reader, w.sitePath, { title: 'xy' }), 403);
      expectError(await preview(w.other.client, w.sitePath, { title: 'xy' }), 404);
      expectError(await preview(w.admin.client, { path: { ...w.sitePath.path, siteId: 'noSuchSite' } }, { title: 'xy' }), 404);
    });
  });

  describe('previewSiteCustomizationById through the reader', () => {
    it('renders the page with the draft for the signed-in admin who posts it with the CSRF token, and for nobody else', async () => {
      const w = await world();
      const admin = await session({ userId: w.admin.userId, email: w.admin.email });
      const draft = JSON.stringify({ title: 'Unsaved Title', styling: { primaryColor: { light: '#aa0000', dark: '#aa0000' } }, footer: { copyright: 'Draft footer' } });
      const shown = await postPreview(w.address, { customization: draft, csrfToken: admin.csrfToken }, { cookie: admin.cookie });
      const html = await shown.text();
      expect(shown.status).toBe(200);
      expect(shown.headers.get('cache-control')).toBe('private, no-store');
      expect(shown.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
      expect(html).toContain('Unsaved Title');
      expect(html).toContain('Draft footer');
      expect(html.toLowerCase()).toContain('#aa0000');
      expect(html).toContain('Hello readers.');

      // Readers still get the saved look.
      const saved = await (await fetch(server.url + w.address)).text();
      expect(saved).not.toContain('Unsaved Title');

      // No session, another session's token, no token, a member below admin, a bad draft: refused, nothing shown.
      expect((await postPreview(w.address, { customization: draft, csrfToken: admin.csrfToken }, {})).status).toBe(401);
      expect((await postPreview(w.address, { customization: draft, csrfToken: 'not-the-token' }, { cookie: admin.cookie })).status).toBe(403);
      expect((await postPreview(w.address, { customization: draft }, { cookie: admin.cookie })).status).toBe(400);
      const refused = await postPreview(w.address, { customization: JSON.stringify({ title: 7 }), csrfToken: admin.csrfToken }, { cookie: admin.cookie });
      expect(refused.status).toBe(400);
      expect(await refused.text()).not.toContain('Hello readers.');
      expect((await postPreview(w.address, { customization: 'not json', csrfToken: admin.csrfToken }, { cookie: admin.cookie })).status).toBe(400);
      expect((await fetch(server.url + w.address, { method: 'POST', headers: { 'content-type': 'application/json', cookie: admin.cookie }, body: draft })).status).toBe(415);
      expect((await postPreview(w.address, { customization: 'x'.repeat(300 * 1024), csrfToken: admin.csrfToken }, { cookie: admin.cookie })).status).toBe(413);
    });
  });

  describe('uploadSiteCustomizationImage', () => {
    it('stores a PNG and answers its address under the site, which the reader serves to the site\'s readers', async () => {
      const w = await world();
      const image = await unwrap(upload(w.admin.client, w.sitePath, { name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }));
      expect(image).toMatchObject({ object: 'site-customization-image', contentType: 'image/png', size: 70, dimensions: { width: 1, height: 1 } });
      expect(new URL(image.url).pathname).toBe(`${w.address}/~images/${image.id}`);
      const bytes = Buffer.from(await (await fetch(local(image.downloadURL))).arrayBuffer());
      expect(bytes.equals(Buffer.from(PNG_1x1, 'base64'))).toBe(true);

      // The reader: a redirect to the bytes, for anyone who may read this public site.
      const served = await fetch(server.url + new URL(image.url).pathname, { redirect: 'manual' });
      expect(served.status).toBe(302);
      const followed = await fetch(local(served.headers.get('location')!));
      expect(followed.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await followed.arrayBuffer()).equals(Buffer.from(PNG_1x1, 'base64'))).toBe(true);
      expect((await fetch(`${server.url}${w.address}/~images/noSuchImage`, { redirect: 'manual' })).status).toBe(404);

      // Set as the logo and icon, the published page shows it.
      await unwrap(w.admin.client.PUT('/orgs/{organizationId}/sites/{siteId}/customization', { params: w.sitePath, body: { header: { logo: { light: image.url, dark: image.url } }, favicon: { icon: { light: image.url, dark: image.url } } } as never }));
      const html = await (await fetch(server.url + w.address)).text();
      expect(html).toContain(`<img class="logo logo-light logo-both" src="${image.url}"`);
      expect(html).toContain(`<link rel="icon" href="${image.url}">`);
    });

    it('serves a restricted site\'s images only to those the site opens to', async () => {
      const w = await world('share-link');
      const image = await unwrap(upload(w.admin.client, w.sitePath, { base64: PNG_1x1 }));
      const path = new URL(image.url).pathname;
      expect((await fetch(server.url + path, { redirect: 'manual' })).status).toBe(404);
      const link = await unwrap(w.admin.client.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: w.sitePath, body: { name: 'Partners' } }));
      const keyed = await fetch(`${server.url}${path}?shareKey=${encodeURIComponent(new URL(link.urls.published!).searchParams.get('shareKey')!)}`, { redirect: 'manual' });
      // The key is remembered in a cookie first (303), then the image answers with it.
      expect(keyed.status).toBe(303);
      const cookie = keyed.headers.get('set-cookie')!.split(';')[0]!;
      expect((await fetch(server.url + path, { redirect: 'manual', headers: { cookie } })).status).toBe(302);
      // Another site's image id is not this site's.
      const second = await world();
      const foreign = await unwrap(upload(second.admin.client, second.sitePath, { base64: PNG_1x1 }));
      expect((await fetch(`${server.url}${path.replace(image.id, foreign.id)}`, { redirect: 'manual', headers: { cookie } })).status).toBe(404);
    });

    it('refuses SVG, other bytes, a type the bytes deny, too many pixels and too many bytes; and non-admins', async () => {
      const w = await world();
      expectError(await upload(w.admin.client, w.sitePath, { base64: SVG }), 400, /SVG/);
      expectError(await upload(w.admin.client, w.sitePath, { base64: Buffer.from('plain text').toString('base64') }), 400, /not a PNG, JPEG, GIF or WebP/);
      expectError(await upload(w.admin.client, w.sitePath, { base64: PNG_1x1, contentType: 'image/jpeg' }), 400, /bytes are image\/png/);
      expectError(await upload(w.admin.client, w.sitePath, { base64: pngOfSize(5000, 10) }), 400, /4096 pixels/);
      expectError(await upload(w.admin.client, w.sitePath, { base64: '@@@@' }), 400);
      const large = Buffer.concat([Buffer.from(PNG_1x1, 'base64'), Buffer.alloc(1024 * 1024)]).toString('base64');
      expectError(await upload(w.admin.client, w.sitePath, { base64: large }), 400);
      expect(await unwrap(upload(w.admin.client, w.sitePath, { base64: pngOfSize(4096, 4096) }))).toMatchObject({ dimensions: { width: 4096, height: 4096 } });
      expectError(await upload(w.reader, w.sitePath, { base64: PNG_1x1 }), 403);
      expectError(await upload(w.other.client, w.sitePath, { base64: PNG_1x1 }), 404);
    });
  });

  describe('getSiteCustomizationImageById', () => {
    it('answers members a fresh download address; another site\'s or organization\'s answers 404', async () => {
      const w = await world();
      const image = await unwrap(upload(w.admin.client, w.sitePath, { base64: PNG_1x1, name: 'a/b.png' }));
      const read = await unwrap(w.reader.GET('/orgs/{organizationId}/sites/{siteId}/customization/images/{siteImageId}', { params: { path: { ...w.sitePath.path, siteImageId: image.id } } }));
      expect(read).toMatchObject({ id: image.id, url: image.url, contentType: 'image/png' });
      expectError(await w.other.client.GET('/orgs/{organizationId}/sites/{siteId}/customization/images/{siteImageId}', { params: { path: { ...w.sitePath.path, siteImageId: image.id } } }), 404);
      const second = await unwrap(w.admin.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId: w.organizationId } }, body: { title: 'Second' } as never }));
      expectError(await w.admin.client.GET('/orgs/{organizationId}/sites/{siteId}/customization/images/{siteImageId}', { params: { path: { organizationId: w.organizationId, siteId: second.id, siteImageId: image.id } } }), 404);
    });
  });
});
