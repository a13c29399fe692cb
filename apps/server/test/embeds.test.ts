import { unwrap } from '@quire/client';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg } from './helpers.js';
import { startTestServer, type TestServer } from './server.js';

/*
 * Embeds of web pages (getEmbedByUrl, getEmbedByUrlInSpace): fetched server-side through the URL guard, from a
 * real HTTP server on loopback (test servers allow local URLs; a second one does not, and refuses them).
 */

const PAGE = `<!doctype html><html><head>
<title>Fallback title</title>
<meta property="og:title" content="Rocket &amp; Co &#8212; Launch guide">
<meta property="og:site_name" content="Rocket Docs">
<link rel="shortcut icon" href="/favicon.ico">
</head><body><script>alert(1)</script><p>Body.</p></body></html>`;

describeEachDialect('embeds', (dialect) => {
  let server: TestServer;
  let strictServer: TestServer;
  let web: Server;
  let webUrl: string;

  beforeAll(async () => {
    [server, strictServer] = await Promise.all([startTestServer({ dialect }), startTestServer({ dialect, env: { QUIRE_ALLOW_LOCAL_URLS: 'false' } })]);
    web = createServer((req, res) => {
      if (req.url === '/page') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
      else if (req.url === '/titled') res.writeHead(200, { 'Content-Type': 'text/html' }).end('<title>\n  Just a  title\n</title>');
      else if (req.url === '/moved') res.writeHead(302, { Location: '/page' }).end();
      else if (req.url === '/text') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('<title>Not HTML</title>');
      else if (req.url === '/huge') res.writeHead(200, { 'Content-Type': 'text/html' }).end(Buffer.alloc(2 * 1024 * 1024, 'a'));
      else res.writeHead(404, { 'Content-Type': 'text/html' }).end('<title>Missing</title>');
    });
    await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    // Two servers start at once; on a loaded machine that takes longer than the default hook time.
  }, 180_000);

  afterAll(async () => {
    await new Promise<void>((done) => web.close(() => done()));
    await Promise.all([server?.close(), strictServer?.close()]);
  });

  const embed = (client: ReturnType<TestServer['client']>, url: string) => client.GET('/urls/embed', { params: { query: { url } } });

  describe('getEmbedByUrl', () => {
    it('answers the link card of a page: og title and site name, its icon made absolute, nothing of its markup', async () => {
      const org = await newOrg(server);
      expect(await unwrap(embed(org.client, `${webUrl}/page`))).toEqual({ type: 'link', title: 'Rocket & Co \u2014 Launch guide', site: 'Rocket Docs', icon: `${webUrl}/favicon.ico` });
      expect(await unwrap(embed(org.client, `${webUrl}/moved`))).toMatchObject({ title: 'Rocket & Co \u2014 Launch guide' });
      expect(await unwrap(embed(org.client, `${webUrl}/titled`))).toEqual({ type: 'link', title: 'Just a title', site: '127.0.0.1' });
      // Not HTML, or an error: shown by its URL.
      expect(await unwrap(embed(org.client, `${webUrl}/text`))).toEqual({ type: 'link', title: `${webUrl}/text`, site: '127.0.0.1' });
      expect(await unwrap(embed(org.client, `${webUrl}/missing`))).toEqual({ type: 'link', title: `${webUrl}/missing`, site: '127.0.0.1' });
    });

    it('refuses what the guard refuses (400): past the size limit, not http(s), and without a token 401', async () => {
      const org = await newOrg(server);
      expectError(await embed(org.client, `${webUrl}/huge`), 400, /limit/);
      expectError(await embed(org.client, 'file:///etc/passwd'), 400);
      expectError(await embed(org.client, 'not a url'), 400);
      expectError(await embed(server.client(), `${webUrl}/page`), 401);
    });

    it('refuses loopback and private addresses on an install that does not allow local URLs', async () => {
      const org = await newOrg(strictServer);
      expectError(await embed(org.client, `${webUrl}/page`), 400, /QUIRE_ALLOW_LOCAL_URLS/);
      expectError(await embed(org.client, 'http://169.254.169.254/latest/meta-data/'), 400, /QUIRE_ALLOW_LOCAL_URLS/);
      expectError(await embed(org.client, 'http://10.0.0.1/'), 400, /QUIRE_ALLOW_LOCAL_URLS/);
    });
  });

  describe('getEmbedByUrlInSpace', () => {
    it('answers the same card for a space the caller sees, and 404 for another organization\'s space', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org, { title: 'Guides' });
      const inSpace = (client: ReturnType<TestServer['client']>, url: string) => client.GET('/spaces/{spaceId}/embed', { params: { path: { spaceId: space.id }, query: { url } } });
      expect(await unwrap(inSpace(org.client, `${webUrl}/page`))).toEqual(await unwrap(embed(org.client, `${webUrl}/page`)));
      const other = await newOrg(server, 'Other org');
      expectError(await inSpace(other.client, `${webUrl}/page`), 404);
      expectError(await inSpace(org.client, 'ftp://example.com/'), 400);
    });
  });
});
