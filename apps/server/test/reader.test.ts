import { unwrap, type QuireClient } from '@quire/client';
import { request as httpRequest, ServerResponse } from 'node:http';
import { SignJWT } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { contentFixtures } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, newOrg, useTestServer } from './helpers.js';

/*
 * The reader (apps/reader) as `npm start` serves it: published sites at their `/sites/...` addresses, read by
 * the reader through the API's lookup and the visitor token only. Requests go over real HTTP to the test
 * server, like a browser's (no redirects followed, cookies carried by hand).
 */

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const HOSTILE = [
  '# Hostile',
  '<script>alert(1)</script>',
  '<img src=x onerror="alert(1)">',
  '[md link](javascript:alert(1)) [vb](vbscript:msgbox(1)) [data](data:text/html;base64,PHNjcmlwdD4=)',
  '<svg onload="alert(1)"><script>alert(2)</script></svg>',
  '<iframe src="https://evil.example"></iframe>',
  '<a href="javascript:alert(1)" onclick="alert(1)">raw</a>',
  '![x](javascript:alert(1))',
  '<div style="background:url(javascript:alert(1))" onmouseover="alert(1)">hover</div>',
].join('\n\n');

/** No executable content anywhere in a served page: every `<` in serialized HTML text is escaped, so tags are real. */
function expectNoContentScript(html: string, assetScript: string) {
  const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map((match) => match[0]);
  // The one script is the reader's own asset, loaded by address (the CSP allows no inline script).
  expect(scripts).toEqual([`<script src="${assetScript}"></script>`.replace('</script>', '')]);
  expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
  expect(html).not.toMatch(/<[a-z][^>]*(javascript|vbscript|data):/i);
  expect(html).not.toMatch(/<(iframe|svg|object|embed)\b/i);
}

describeEachDialect('reader', (dialect) => {
  const server = useTestServer({ dialect });
  const content = contentFixtures(() => server);

  async function site(options: { visibility?: 'public' | 'unlisted' | 'share-link' | 'visitor-auth' } = {}) {
    const org = await newOrg(server, 'Reader org');
    const space = await createSpace(org, { title: 'Guides' });
    const files = await content.editMain(org, space.id, [
      { operation: 'insert_files', files: [{ name: 'dot.png', base64: PNG_1x1, ref: 'dot' }] },
    ]);
    const fileId = files.insertedFiles![0]!.id;
    const update = await content.editMain(org, space.id, [
      {
        operation: 'insert_page', title: 'Introduction', ref: 'intro',
        document: { markdown: `Welcome to the guides.\n\n## Getting started\n\nRead [the setup](setup.md#install-it) and [a missing page](/pages/nope).\n\n{% hint style="warning" %}\nMind the **gap**.\n{% endhint %}\n\n\`\`\`js\nconst answer = 42;\n\`\`\`\n\n![A dot](/files/${fileId})\n` },
      },
      { operation: 'insert_page', title: 'Setup', slug: 'setup', ref: 'setup', document: { markdown: '## Install it\n\nRun the zebracorn installer.\n\n### Details\n\nMore.' } },
      { operation: 'insert_page', title: 'Advanced', slug: 'advanced', ref: 'advanced', into: 'setup', document: { markdown: 'Nested page.' } },
      { operation: 'insert_page', title: 'Secret draft', slug: 'secret', ref: 'secret', document: { markdown: 'Hidden but reachable.' } },
      { operation: 'insert_page', title: 'Hostile', slug: 'hostile', ref: 'hostile', document: { markdown: HOSTILE } },
    ]);
    const secretId = content.pageOf(update, 'secret');
    await content.editMain(org, space.id, [{ operation: 'update_page', page: secretId, hidden: true }]);
    const params = { path: { organizationId: org.organizationId } };
    const created = await unwrap(
      org.client.POST('/orgs/{organizationId}/sites', { params, body: { title: 'Acme Docs', visibility: options.visibility ?? 'public', spaces: [space.id] } as never }),
    );
    const sitePath = { path: { organizationId: org.organizationId, siteId: created.id } };
    const published = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath }));
    const address = new URL(published.urls.published!).pathname;
    return { org, space, siteId: created.id, sitePath, address, update, fileId };
  }

  const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { redirect: 'manual', headers });

  async function page(path: string, headers: Record<string, string> = {}) {
    const response = await get(path, headers);
    return { response, html: await response.text() };
  }

  const assetOf = (html: string, kind: 'css' | 'js') =>
    (kind === 'css' ? /<link rel="stylesheet" href="([^"]+)"/ : /<script src="([^"]+)"/).exec(html)?.[1] ?? '';

  describe('a published public site', () => {
    it('renders the first page with navigation, content, headers and a weight under 100 KB', async () => {
      const s = await site();
      const { response, html } = await page(s.address);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      // Layout: skip link, landmarks, title, sidebar (hidden page left out), TOC, prev/next, search.
      expect(html).toContain('<a class="skip-link" href="#content">Skip to content</a>');
      expect(html).toContain('<main id="content"');
      expect(html).toContain('<header class="header">');
      expect(html).toContain('<footer class="footer">');
      expect(html).toContain('<title>Introduction | Acme Docs</title>');
      expect(html).toContain(`<a href="${s.address}" aria-current="page">Introduction</a>`);
      expect(html).toContain(`<a href="${s.address}/setup">Setup</a>`);
      // The tree is open along the current page only: Setup's child shows once Setup is opened.
      expect(html).not.toContain(`<a href="${s.address}/setup/advanced">Advanced</a>`);
      expect(html).not.toContain('Secret draft');
      expect(html).toContain('<a href="#getting-started">Getting started</a>');
      expect(html).toContain(`<a rel="next" class="next" href="${s.address}/setup">`);
      expect(html).toContain(`<form class="search" role="search" action="${s.address}/search"`);
      // Content: hint, highlighted code, links resolved to site addresses, broken links as text, the image with its size.
      expect(html).toContain('<div class="hint hint-warning" role="note" aria-label="Warning"><p>Mind the <strong>gap</strong>.</p></div>');
      expect(html).toContain('<span class="hljs-keyword">const</span>');
      expect(html).toContain(`<a href="${s.address}/setup#install-it">the setup</a>`);
      expect(html).toContain('<span class="broken-link">a missing page</span>');
      expect(html).toMatch(new RegExp(`<img src="${s.address}/~files/${s.fileId}" alt="A dot" loading="lazy" width="1" height="1">`));
      // Headers.
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(response.headers.get('x-robots-tag')).toBeNull();
      expect(html).not.toContain('name="robots"');
      // Assets: served, long-lived; the page with its CSS and JS stays light.
      const css = await get(assetOf(html, 'css'));
      const js = await get(assetOf(html, 'js'));
      expect(css.status).toBe(200);
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(css.headers.get('cache-control')).toContain('immutable');
      const weight = Buffer.byteLength(html) + (await css.arrayBuffer()).byteLength + (await js.arrayBuffer()).byteLength;
      expect(weight).toBeLessThan(100_000);
      // The image's address redirects to the file's download URL, read with the visitor token.
      const image = await get(`${s.address}/~files/${s.fileId}`);
      expect(image.status).toBe(302);
      // Download URLs are built on QUIRE_PUBLIC_URL, which the test server does not listen on.
      const bytes = await fetch(image.headers.get('location')!.replace(/^https?:\/\/[^/]+/, server.url));
      expect(Buffer.from(await bytes.arrayBuffer()).toString('base64')).toBe(PNG_1x1);
    });

    it('serves nested pages with breadcrumbs, hidden pages by address, and a 404 page inside the layout', async () => {
      const s = await site();
      const nested = await page(`${s.address}/setup/advanced`);
      expect(nested.response.status).toBe(200);
      expect(nested.html).toContain(`<a href="${s.address}/setup/advanced" aria-current="page">Advanced</a>`);
      expect((await page(`${s.address}/setup`)).html).toContain(`<a href="${s.address}/setup/advanced">Advanced</a>`);
      expect(nested.html).toContain(`<nav aria-label="Breadcrumbs" class="breadcrumbs"><ol><li><a href="${s.address}/setup">Setup</a></li><li aria-current="page">Advanced</li></ol></nav>`);
      expect(nested.html).toContain(`<a rel="prev" class="prev" href="${s.address}/setup">`);
      const hidden = await page(`${s.address}/secret`);
      expect(hidden.response.status).toBe(200);
      expect(hidden.html).toContain('Hidden but reachable.');
      const missing = await page(`${s.address}/no/such/page`);
      expect(missing.response.status).toBe(404);
      expect(missing.html).toContain('<h1>Page not found</h1>');
      expect(missing.html).toContain('<nav aria-label="Pages" class="sidebar"');
      // Malformed escapes are a client error, never a 5xx.
      for (const bad of [`${s.address}/%E0%A4%A`, `${s.address}/~files/%E0%A4%A`, `${s.address}/%E0%A4%A.md`]) {
        expect([400, 404]).toContain((await get(bad)).status);
      }
      const noSite = await page('/sites/no-such-site-here');
      expect(noSite.response.status).toBe(404);
    });

    it('renders a reusable content where a page includes it, and nothing for one deleted since', async () => {
      const s = await site();
      const made = await content.editMain(s.org, s.space.id, [
        { operation: 'insert_reusable_content', title: 'Support', document: { markdown: 'Write to **the zebra desk**.' }, ref: 'support' },
      ]);
      const support = made.reusableContents![0]!.reusableContent;
      await content.editMain(s.org, s.space.id, [
        { operation: 'insert_page', title: 'Help', slug: 'help', document: { markdown: `Need help?\n\n{% include "/reusable-contents/${support}" %}\n\n{% include "/reusable-contents/gone" %}\n` } },
      ]);
      const help = await page(`${s.address}/help`);
      expect(help.response.status).toBe(200);
      expect(help.html).toContain('Write to <strong>the zebra desk</strong>.');
      expect(help.html).not.toContain('{% include');
    });

    it('lets no script from hostile Markdown reach the page', async () => {
      const s = await site();
      const { response, html } = await page(`${s.address}/hostile`);
      expect(response.status).toBe(200);
      expectNoContentScript(html, assetOf(html, 'js'));
    });

    it('answers an ETag, 304 for it, and renders anew once the revision moves', async () => {
      const s = await site();
      const first = await get(`${s.address}/setup`);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await get(`${s.address}/setup`, { 'if-none-match': etag });
      expect(again.status).toBe(304);
      await content.editMain(s.org, s.space.id, [{ operation: 'update_page', page: content.pageOf(s.update, 'setup'), document: { markdown: '## Install it\n\nNow with the unicornfish installer.' } }]);
      // Open sites reuse a lookup for at most a second (the documented staleness bound).
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const changed = await get(`${s.address}/setup`, { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(await changed.text()).toContain('unicornfish');
    });

    it('answers a cached page in one writeHead, with the headers of its first answer in the same order', async () => {
      const s = await site();
      const path = `${s.address}/setup`;
      // Header names in the order they were written, and the request id, from the raw answer.
      const rawAnswer = () =>
        new Promise<{ names: string[]; requestId: string; body: string }>((resolve, reject) => {
          httpRequest(server.url + path, (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => {
              const names = response.rawHeaders.filter((_, at) => at % 2 === 0);
              resolve({ names: names.filter((name) => name !== 'Date'), requestId: response.headers['x-request-id'] as string, body });
            });
          }).on('error', reject).end();
        });
      const first = await rawAnswer();
      // The cached answer sets no header one by one (before: the request id, then the page's 10 merged into it).
      const setHeader = vi.spyOn(ServerResponse.prototype, 'setHeader');
      let cached;
      try {
        cached = await rawAnswer();
        const onThisPage = setHeader.mock.contexts.filter((res) => (res as ServerResponse).req?.url === path);
        expect(onThisPage).toHaveLength(0);
      } finally {
        setHeader.mockRestore();
      }
      expect(cached.names).toEqual(first.names);
      expect(cached.names[0]).toBe('X-Request-Id');
      expect(cached.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(cached.requestId).not.toBe(first.requestId);
      expect(cached.body).toBe(first.body);
    });

    it('searches the space server-side, linking results to the page and section anchor', async () => {
      await content.runJobs();
      const s = await site();
      await content.runJobs();
      const { response, html } = await page(`${s.address}/search?q=zebracorn`);
      expect(response.status).toBe(200);
      expect(html).toContain(`<a href="${s.address}/setup">Setup</a>`);
      expect(html).toContain(`<a href="${s.address}/setup#install-it">Install it</a><p class="snippet">Run the <mark>zebracorn</mark> installer.</p>`);
      const empty = await page(`${s.address}/search?q=nothingmatchesthisword`);
      expect(empty.html).toContain('No results.');
    });

    it('answers machines: robots.txt, sitemap.xml, llms.txt, llms-full.txt, RSS and pages as Markdown', async () => {
      const s = await site();
            const robots = await get(`${s.address}/robots.txt`);
      expect(robots.status).toBe(200);
      expect(await robots.text()).toContain(`Sitemap: `);
      const sitemap = await (await get(`${s.address}/sitemap.xml`)).text();
      expect(sitemap).toContain('<urlset');
      expect(sitemap).toContain(`${s.address}/setup/advanced</loc>`);
      expect(sitemap).not.toContain('secret');
      const llms = await (await get(`${s.address}/llms.txt`)).text();
      expect(llms).toContain('# Acme Docs');
      expect(llms).toMatch(new RegExp(`- \\[Setup\\]\\(.*${s.address}/setup\\.md\\)`));
      const full = await (await get(`${s.address}/llms-full.txt`)).text();
      expect(full).toContain('Run the zebracorn installer.');
      const markdown = await get(`${s.address}/setup.md`);
      expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(await markdown.text()).toContain('# Setup\n\n## Install it');
      const rss = await get(`${s.address}/rss.xml`);
      expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
      const feed = await rss.text();
      expect(feed).toContain('<rss version="2.0"');
      expect(feed).toContain('<title><![CDATA[Setup]]></title>');
    });
  });

  /** A published site of two spaces, each with one page, as the admin asks: sections, hostname, conditions. */
  async function twoSpaces(visibility: 'public' | 'visitor-auth' = 'public', withSpaces = true) {
    const org = await newOrg(server, 'Reader org');
    const spaces = [];
    for (const title of ['Guides', 'Pro']) {
      const space = await createSpace(org, { title });
      await content.editMain(org, space.id, [{ operation: 'insert_page', title: `${title} start`, document: { markdown: `${title} content.` } }]);
      spaces.push(space);
    }
    const params = { path: { organizationId: org.organizationId } };
    const created = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params, body: { title: 'Two', visibility, ...(withSpaces ? { spaces: spaces.map((space) => space.id) } : {}) } as never }));
    const sitePath = { path: { organizationId: org.organizationId, siteId: created.id } };
    return { org, spaces, siteId: created.id, sitePath };
  }

  describe('navigation', () => {
    it('shows sections as tabs and section groups as menus, each section at its own address', async () => {
      const t = await twoSpaces('public', false);
      const guides = await unwrap(t.org.client.POST('/orgs/{organizationId}/sites/{siteId}/sections', { params: t.sitePath, body: { spaceId: t.spaces[0]!.id, title: 'Guides' } as never }));
      const pro = await unwrap(t.org.client.POST('/orgs/{organizationId}/sites/{siteId}/sections', { params: t.sitePath, body: { spaceId: t.spaces[1]!.id, title: 'Pro docs' } as never }));
      await unwrap(t.org.client.POST('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: t.sitePath, body: { title: 'More', sections: [pro.id] } as never }));
      const published = await unwrap(t.org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: t.sitePath }));
      const address = new URL(published.urls.published!).pathname;
      const { response, html } = await page(address);
      expect(response.status).toBe(200);
      expect(html).toContain('<nav aria-label="Sections" class="tabs">');
      expect(html).toMatch(new RegExp(`<a href="${address}/${guides.path}" aria-current="page">Guides</a>`));
      const proHref = `${address}/${pro.path}`;
      expect(html).toContain(`<details class="menu"><summary>More</summary><ul><li><a href="${proHref}">Pro docs</a></li></ul></details>`);
      const other = await page(proHref);
      expect(other.response.status).toBe(200);
      expect(other.html).toContain('Pro content.');
      expect(other.html).toContain(`<a href="${proHref}" aria-current="page">Pro docs</a>`);
      // Machine files sit at the site's own address, and list every section's pages.
      const robots = await get(`${address}/robots.txt`);
      expect(robots.status).toBe(200);
      expect(await robots.text()).toContain(`${address}/sitemap.xml`);
      const llms = await (await get(`${address}/llms.txt`)).text();
      expect(llms).toContain('## Guides');
      expect(llms).toMatch(new RegExp(`\\(.*${proHref}/(pro/)?pro-start\\.md\\)`));
    });

    it('serves a site with a hostname by the request\'s Host, at the root of that host', async () => {
      const t = await twoSpaces();
      const hostname = `reader-${dialect}-${t.siteId.toLowerCase()}.example.com`;
      await unwrap(t.org.client.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: t.sitePath, body: { hostname } as never }));
      await unwrap(t.org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: t.sitePath }));
      const { port } = new URL(server.url);
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/', headers: { host: hostname } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer.body).toContain('Guides content.');
      expect(answer.status).toBe(200);
      expect(answer.body).toMatch(/<link rel="stylesheet" href="\/_reader\//);
    });
  });

  describe('OpenAPI pages', () => {
    it('renders the operations of a spec that pages were computed from', async () => {
      const org = await newOrg(server, 'Reader org');
      const space = await createSpace(org, { title: 'API' });
      const spec = [
        'openapi: 3.0.3',
        'info: { title: Zoo, version: 1.0.0 }',
        'tags: [{ name: animals, description: The animals. }]',
        'paths:',
        '  /animals:',
        '    get:',
        '      tags: [animals]',
        '      summary: List animals',
        '      parameters: [{ name: limit, in: query, schema: { type: integer } }]',
        '      responses: { "200": { description: The animals } }',
        '',
      ].join('\n');
      const added = await content.editMain(org, space.id, [
        { operation: 'insert_page', title: 'Intro', document: { markdown: 'Hello.' } },
        { operation: 'insert_files', files: [{ name: 'zoo.yaml', base64: Buffer.from(spec).toString('base64') }] },
      ]);
      const file = added.insertedFiles![0]!.id;
      const applied = await org.client.POST('/spaces/{spaceId}/content/template', { params: { path: { spaceId: space.id } }, body: { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'file', file } } } } });
      expect(applied.response.status, JSON.stringify(applied.error)).toBe(201);
      const params = { path: { organizationId: org.organizationId } };
      const created = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params, body: { title: 'Zoo', spaces: [space.id] } as never }));
      const published = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: { path: { ...params.path, siteId: created.id } } }));
      const address = new URL(published.urls.published!).pathname;
      const reference = await page(`${address}/api-reference`);
      expect(reference.response.status).toBe(200);
      expect(reference.html).toContain('generated from <code>zoo.yaml</code>');
      const animals = await page(`${address}/api-reference/animals`);
      expect(animals.response.status).toBe(200);
      expect(animals.html).toContain('<code>GET /animals</code>');
      expect(animals.html).toContain('<td><code>limit</code></td>');
    });
  });

  describe('customizations', () => {
    it('shows the title, logo, favicon, colours, links, announcement and theme set with updateSiteCustomizationById', async () => {
      const s = await site();
      const customization = {
        title: 'Acme <Handbook>',
        styling: { primaryColor: { light: '#112233', dark: '#445566' }, infoColor: { light: '#0000ff', dark: '#000' } },
        favicon: { icon: { light: 'https://cdn.example.com/favicon.png', dark: 'https://cdn.example.com/favicon-dark.png' } },
        header: {
          logo: { light: 'https://cdn.example.com/logo.png', dark: 'https://cdn.example.com/logo-dark.png' },
          links: [{ title: 'Home page', to: { kind: 'url', url: 'https://acme.example.com' } }],
        },
        footer: { groups: [{ title: 'Company', links: [{ title: 'About', to: { kind: 'url', url: 'https://acme.example.com/about' } }] }], copyright: '© Acme' },
        announcement: { enabled: true, message: 'Version 2 is out', style: 'success' },
        themes: { default: 'dark', toggeable: true },
      };
      await unwrap(s.org.client.PUT('/orgs/{organizationId}/sites/{siteId}/customization', { params: s.sitePath, body: customization as never }));
      const { response, html } = await page(`${s.address}/setup`);
      expect(response.status).toBe(200);
      expect(html).toContain('<title>Setup | Acme &lt;Handbook&gt;</title>');
      // Readers may switch: the page follows the system (the default is the script's last resort), not a fixed theme.
      expect(html).toContain('<html lang="en" data-theme-default="dark">');
      expect(html).toContain('<img class="logo logo-light" src="https://cdn.example.com/logo.png" alt="Acme &lt;Handbook&gt;"><img class="logo logo-dark" src="https://cdn.example.com/logo-dark.png" alt="Acme &lt;Handbook&gt;">');
      expect(html).toContain('<link rel="icon" href="https://cdn.example.com/favicon.png">');
      expect(html).toContain('<style>:root{--primary:#112233;--info:#0000ff;--success:');
      expect(html).toContain(':root[data-theme=dark]{--primary:#445566;--info:#000;');
      expect(html).toContain('<a href="https://acme.example.com">Home page</a>');
      expect(html).toContain('<div class="announcement announcement-success" role="region" aria-label="Announcement">Version 2 is out</div>');
      expect(html).toContain('<a href="https://acme.example.com/about">About</a>');
      expect(html).toContain('© Acme');
      expect(html).toContain('<button type="button" class="theme-toggle" hidden aria-label="Toggle dark theme">');
      expectNoContentScript(html, assetOf(html, 'js'));
      // The inline style is allowed by its hash, never by 'unsafe-inline'.
      const style = /<style>(.*?)<\/style>/.exec(html)![1]!;
      const { createHash } = await import('node:crypto');
      expect(response.headers.get('content-security-policy')).toContain(`style-src 'self' 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    });
  });

  describe('access', () => {
    it('unlisted: open to all with noindex; no robots.txt or sitemap', async () => {
      const s = await site({ visibility: 'unlisted' });
      const { response, html } = await page(s.address);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-robots-tag')).toBe('noindex');
      expect(html).toContain('<meta name="robots" content="noindex">');
      expect((await get(`${s.address}/robots.txt`)).status).toBe(404);
      expect((await get(`${s.address}/sitemap.xml`)).status).toBe(404);
    });

    it('share-link: opens through the link address, keeps the key in a cookie, and closes at once', async () => {
      const s = await site({ visibility: 'share-link' });
      expect((await get(s.address)).status).toBe(404);
      const link = await unwrap(s.org.client.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: s.sitePath, body: { name: 'Partners' } }));
      const linkUrl = new URL(link.urls.published!);
      const opened = await get(linkUrl.pathname + linkUrl.search);
      expect(opened.status).toBe(303);
      expect(opened.headers.get('location')).toBe(linkUrl.pathname);
      const cookie = opened.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^quire_share_key=[^;]+; Path=\/sites\/[^;]+; HttpOnly; SameSite=Lax$/);
      const jar = cookie.split(';')[0]!;
      const { response, html } = await page(linkUrl.pathname, { cookie: jar });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('private, no-cache');
      // The key is never in the page's links.
      const key = linkUrl.searchParams.get('shareKey')!;
      expect(html).not.toContain(key);
      expect((await get(`${s.address}/setup`, { cookie: jar })).status).toBe(200);
      // Deactivated: closed on the next request, even with the cookie.
      await unwrap(s.org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: { path: { ...s.sitePath.path, shareLinkId: link.id } }, body: { active: false } }));
      expect((await get(linkUrl.pathname, { cookie: jar })).status).toBe(404);
      expect((await get(linkUrl.pathname + linkUrl.search)).status).toBe(404);
    });

    it('unpublished: 404', async () => {
      const s = await site({ visibility: 'share-link' });
      const link = await unwrap(s.org.client.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: s.sitePath, body: { name: 'Partners' } }));
      const linkUrl = new URL(link.urls.published!);
      const jar = (await get(linkUrl.pathname + linkUrl.search)).headers.get('set-cookie')!.split(';')[0]!;
      expect((await get(linkUrl.pathname, { cookie: jar })).status).toBe(200);
      await unwrap(s.org.client.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: s.sitePath }));
      expect((await get(linkUrl.pathname, { cookie: jar })).status).toBe(404);
    });

    it('visitor-auth: redirects to the backend without a JWT, opens with a signed one kept in a cookie', async () => {
      const s = await site({ visibility: 'visitor-auth' });
      const settings = await unwrap(
        (s.org.client as QuireClient).PATCH('/orgs/{organizationId}/sites/{siteId}/publishing/auth', { params: s.sitePath, body: { backend: 'custom', fallbackURL: 'https://auth.example.com/login' } }),
      );
      const bounced = await get(s.address);
      expect(bounced.status).toBe(302);
      expect(bounced.headers.get('location')).toMatch(/^https:\/\/auth\.example\.com\/login\?location=/);
      const jwt = await new SignJWT({ plan: 'pro' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(settings.privateKey));
      const back = await get(`${s.address}?jwt_token=${jwt}`);
      expect(back.status).toBe(303);
      expect(back.headers.get('location')).toBe(s.address);
      const cookie = back.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^quire_visitor_jwt=[^;]+; Path=\/sites\/[^;]+; HttpOnly; SameSite=Lax$/);
      const { response, html } = await page(s.address, { cookie: cookie.split(';')[0]! });
      expect(response.status).toBe(200);
      expect(html).not.toContain(jwt);
      // Adaptive content: site spaces whose condition is false for the JWT's claims are not shown.
      expect(html).not.toContain('quire_visitor_jwt');
      const forged = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new Uint8Array(32));
      expect((await get(s.address, { cookie: `quire_visitor_jwt=${forged}` })).status).toBe(302);
    });

    it('visitor-auth conditions: site spaces whose condition fails for the claims are left out', async () => {
      const t = await twoSpaces('visitor-auth');
      const siteSpaces = (await unwrap(t.org.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: t.sitePath }))).items;
      await unwrap(t.org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', {
        params: { path: { ...t.sitePath.path, siteSpaceId: siteSpaces[1]!.id } }, body: { condition: 'visitor.claims.plan == "pro"' },
      }));
      const published = await unwrap(t.org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: t.sitePath }));
      const address = new URL(published.urls.published!).pathname;
      const settings = await unwrap(t.org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/publishing/auth', { params: t.sitePath, body: { backend: 'custom', fallbackURL: 'https://auth.example.com/login' } }));
      const as = async (plan: string) => {
        const jwt = await new SignJWT({ plan }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(settings.privateKey));
        return { cookie: `quire_visitor_jwt=${jwt}` };
      };
      const free = await page(address, await as('free'));
      expect(free.response.status).toBe(200);
      expect(free.html).toContain('Guides content.');
      expect(free.html).not.toContain('Pro start');
      const proAddress = new URL(siteSpaces[1]!.urls.published ?? `http://x${address}/${siteSpaces[1]!.path}`).pathname;
      expect((await page(`${address}/${siteSpaces[1]!.path}`, await as('free'))).html).not.toContain('Pro content.');
      const pro = await page(address, await as('pro'));
      expect(pro.html).toContain('<details class="menu spaces">');
      expect(pro.html).toContain('>Pro</a>');
      const proPage = await page(`${address}/${siteSpaces[1]!.path}`, await as('pro'));
      expect(proPage.response.status).toBe(200);
      expect(proPage.html).toContain('Pro content.');
      void proAddress;
    });
  });
});
