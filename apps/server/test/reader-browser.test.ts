import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unwrap } from '@quire/client';
import { SignJWT } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, expectNotBlank, haveChromium, launchChromium, publishSite, seriousViolations, watchedPage, type PublishedSite, type Watched } from './browser-support.js';
import { freePort } from './built.js';
import { contentFixtures } from './content-fixtures.js';
import { createSpace, newOrg, type TestOrg } from './helpers.js';
import { startTestServer, type TestServer } from './server.js';

/*
 * The reader in a real browser: Debian's Chromium, driven by playwright-core, against a real server (the app
 * `npm start` runs, with the reader mounted) on a real database, reading sites published from spaces. Every
 * page opened here must log no console error and no uncaught exception (a Content-Security-Policy violation
 * is a console error too), except the one "status of 404" line Chromium logs for a page that is meant to be
 * a 404. Accessibility is checked with axe-core injected into the page through the DevTools protocol (which
 * the page's CSP does not govern), so the policy stays in force for the reader's own code.
 *
 * Skipped, saying so, only when there is no Chromium binary (CI installs Debian's: see .ci/run).
 */

if (!haveChromium) console.warn(`reader-browser: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const PNG_4x3 = (() => {
  // A small opaque image with its own dimensions, so the page shows a real <img> with width and height.
  const png = new PNG({ width: 4, height: 3 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([200, 40, 40, 255], i);
  return PNG.sync.write(png).toString('base64');
})();

/** A page with every block kind of the content model the reader renders. */
const blocksMarkdown = (fileId: string) => `The blocks page shows every kind of block.

## Lists

- first item
- second item
  - nested item

1. step one
2. step two

## Table

| Name | Value |
| --- | --- |
| alpha | 1 |
| beta | 2 |

## Code

\`\`\`ts
const answer: number = 42;
\`\`\`

## Quote

> A quotation from someone wise.

## Hints

{% hint style="info" %}
An **info** hint.
{% endhint %}

{% hint style="warning" %}
A warning hint.
{% endhint %}

{% hint style="danger" %}
A danger hint.
{% endhint %}

{% hint style="success" %}
A success hint.
{% endhint %}

## Image

![A red block](/files/${fileId})

## Links

Read [the setup](setup.md#install-it), an [external page](https://example.com/) and [a missing page](/pages/nope).
`;

describe.skipIf(!haveChromium)('reader in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let site: PublishedSite;
  let origin: string;
  const content = contentFixtures(() => server);
  const contexts: BrowserContext[] = [];

  /** A page in a fresh context (its own cookies and storage), watched for console errors. */
  async function open(): Promise<Watched> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    // Nothing but the server under test (and the visitor-auth backend of one test) is reached.
    return watchedPage(context, [origin, backendOrigin]);
  }

  /** A space with a few pages (one hidden, one with every block kind) and an image, its search index built. */
  async function spaceWithPages(org: TestOrg, title: string): Promise<string> {
    const space = await createSpace(org, { title });
    const files = await content.editMain(org, space.id, [{ operation: 'insert_files', files: [{ name: 'block.png', base64: PNG_4x3, ref: 'block' }] }]);
    const fileId = files.insertedFiles![0]!.id;
    const update = await content.editMain(org, space.id, [
      { operation: 'insert_page', title: 'Introduction', ref: 'intro', document: { markdown: 'Welcome to the **Acme** guides.\n\n## Getting started\n\nRead [the setup](setup.md) first.\n' } },
      { operation: 'insert_page', title: 'Setup', slug: 'setup', ref: 'setup', document: { markdown: '## Install it\n\nRun the zebracorn installer.\n\n## Configure it\n\nSet the options.\n' } },
      { operation: 'insert_page', title: 'Advanced', slug: 'advanced', ref: 'advanced', into: 'setup', document: { markdown: 'Nested page about tuning.' } },
      { operation: 'insert_page', title: 'Blocks', slug: 'blocks', ref: 'blocks', document: { markdown: blocksMarkdown(fileId) } },
      { operation: 'insert_page', title: 'Secret draft', slug: 'secret', ref: 'secret', document: { markdown: 'Hidden page.' } },
    ]);
    await content.editMain(org, space.id, [{ operation: 'update_page', page: content.pageOf(update, 'secret'), hidden: true }]);
    await content.runJobs();
    return space.id;
  }

  // The visitor-auth backend of the organization: it "signs in" whoever clicks its button and sends them back
  // to the site with a JWT signed by the site's key, as the README of the server describes.
  let backend: Server | undefined;
  let backendOrigin = 'http://backend.invalid';
  let backendKey = '';

  beforeAll(async () => {
    // The public URL is the address the browser uses, so every link the API answers (pages, file downloads) opens.
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startTestServer({ env: { PORT: String(port), QUIRE_PUBLIC_URL: origin } });
    browser = await launchChromium();
    backend = createServer((req, res) => {
      const url = new URL(req.url ?? '/', backendOrigin);
      const location = url.searchParams.get('location') ?? '';
      if (url.pathname === '/login') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html lang="en"><head><title>Sign in</title><link rel="icon" href="data:,"></head><body><main><h1>Sign in to Acme</h1><a id="sign-in" href="/callback?location=${encodeURIComponent(location)}">Sign in as Ada</a></main></body></html>`);
        return;
      }
      if (url.pathname === '/callback') {
        void new SignJWT({ name: 'Ada', plan: 'pro' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setExpirationTime('10m')
          .sign(new TextEncoder().encode(backendKey))
          .then((jwt) => {
            const target = new URL(location);
            target.searchParams.set('jwt_token', jwt);
            res.writeHead(302, { location: target.toString() });
            res.end();
          });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => backend!.listen(0, '127.0.0.1', resolve));
    backendOrigin = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;

    const org = await newOrg(server, 'Browser org');
    site = await publishSite(org, await spaceWithPages(org, 'Guides'), 'public', 'Acme Docs');
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await new Promise((resolve) => (backend ? backend.close(resolve) : resolve(undefined)));
    await server?.close();
  });

  it('opens the published site at the address the API reports, and screenshots it (PNG, not blank)', async () => {
    const { page, errors } = await open();
    const response = await page.goto(site.url);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Introduction | Acme Docs');
    expect(await page.locator('main h1').innerText()).toBe('Introduction');
    expect(await page.locator('nav.sidebar').innerText()).not.toContain('Secret draft');
    // The stylesheet applied (the sidebar is a column beside the content, not a list above it).
    const sidebar = await page.locator('nav.sidebar').boundingBox();
    const main = await page.locator('main').boundingBox();
    expect(sidebar!.x + sidebar!.width).toBeLessThanOrEqual(main!.x);
    expectNotBlank(await page.screenshot(), 1280, 800);
    const blocks = await page.goto(`${site.url}/blocks`);
    expect(blocks?.status()).toBe(200);
    // The image from the space loads (its download URL is read with the visitor token) at its own size.
    const image = page.locator('article img[alt="A red block"]');
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(4);
    expectNotBlank(await page.screenshot({ fullPage: true }), 1280, await page.evaluate(() => document.documentElement.scrollHeight));
    expect(errors).toEqual([]);
  }, 60_000);

  it('navigates the sidebar by keyboard (skip link first, then the links) and by click, with prev/next and breadcrumbs', async () => {
    const { page, errors } = await open();
    await page.goto(site.url);
    // The first Tab reaches the skip link, which moves the focus to the content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('skip-link');
    await page.keyboard.press('Enter');
    expect(new URL(page.url()).hash).toBe('#content');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('content');
    // From the top, Tab goes through the header to the sidebar's links; Enter follows the one focused.
    await page.goto(site.url);
    const reached: string[] = [];
    for (let step = 0; step < 30; step++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLAnchorElement | null;
        return element?.closest('nav.sidebar') ? element.textContent?.trim() ?? '' : undefined;
      });
      if (focused !== undefined) reached.push(focused);
      if (focused === 'Setup') break;
    }
    expect(reached).toEqual(['Introduction', 'Setup']);
    await Promise.all([page.waitForURL(`${site.url}/setup`), page.keyboard.press('Enter')]);
    expect(await page.locator('main h1').innerText()).toBe('Setup');
    expect(await page.locator('nav.sidebar a[aria-current="page"]').innerText()).toBe('Setup');
    // Click: a nested page, with its breadcrumbs; then back through "Previous".
    await Promise.all([page.waitForURL(`${site.url}/setup/advanced`), page.locator('nav.sidebar').getByRole('link', { name: 'Advanced' }).click()]);
    expect(await page.locator('nav.breadcrumbs').innerText()).toContain('Setup');
    await Promise.all([page.waitForURL(`${site.url}/setup`), page.locator('nav.pagination a[rel="prev"]').click()]);
    // The on-page table of contents jumps to a heading's stable anchor.
    await page.locator('aside.toc').getByRole('link', { name: 'Configure it' }).click();
    expect(new URL(page.url()).hash).toBe('#configure-it');
    expect(errors).toEqual([]);
  }, 60_000);

  it('searches from the header: live results as one types, and the search page on Enter', async () => {
    const { page, errors } = await open();
    await page.goto(site.url);
    const box = page.locator('header form.search input[name="q"]');
    await box.fill('zebracorn');
    const live = page.locator('form.search .live-results a');
    await expect.poll(() => live.allInnerTexts(), { timeout: 10_000 }).toEqual(['Setup']);
    await Promise.all([page.waitForURL(/\/search\?q=zebracorn$/), box.press('Enter')]);
    expect(await page.locator('main h1').innerText()).toBe('Search');
    // The result links to the page and to the section where the word is.
    await Promise.all([page.waitForURL(`${site.url}/setup#install-it`), page.locator('ol.results').getByRole('link', { name: 'Install it' }).click()]);
    expect(await page.locator('main h1').innerText()).toBe('Setup');
    expect(errors).toEqual([]);
  }, 60_000);

  it('toggles the theme, remembers it after a reload, and the screenshots differ', async () => {
    const { page, errors } = await open();
    await page.goto(site.url);
    const theme = () => page.evaluate(() => document.documentElement.getAttribute('data-theme'));
    expect(await theme()).toBe('light');
    const light = await page.screenshot();
    const toggle = page.locator('button.theme-toggle');
    await expect.poll(() => toggle.isVisible()).toBe(true);
    await toggle.click();
    expect(await theme()).toBe('dark');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await page.reload();
    expect(await theme()).toBe('dark');
    const dark = await page.screenshot();
    const lightColours = expectNotBlank(light, 1280, 800);
    const darkColours = expectNotBlank(dark, 1280, 800);
    // The background itself changed: the top-left pixel is light in one and dark in the other.
    const corner = (png: Buffer) => {
      const { data } = PNG.sync.read(png);
      return data[0]! + data[1]! + data[2]!;
    };
    expect(corner(light)).toBeGreaterThan(600);
    expect(corner(dark)).toBeLessThan(150);
    expect(lightColours).not.toEqual(darkColours);
    await toggle.click();
    await page.reload();
    expect(await theme()).toBe('light');
    expect(errors).toEqual([]);
  }, 60_000);

  it('follows a share link: the key moves to an HttpOnly cookie, the address is clean, and deactivation closes the site', async () => {
    const org = await newOrg(server, 'Share org');
    const shared = await publishSite(org, await spaceWithPages(org, 'Partner guides'), 'share-link', 'Partner Docs');
    const link = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: shared.sitePath, body: { name: 'Partners' } }));
    const key = new URL(link.urls.published!).searchParams.get('shareKey')!;
    const { page, errors } = await open();
    const response = await page.goto(link.urls.published!);
    expect(response?.status()).toBe(200);
    expect(page.url()).not.toContain('shareKey');
    expect(await page.locator('main h1').innerText()).toBe('Introduction');
    expect(await page.content()).not.toContain(key);
    const cookies = await page.context().cookies();
    expect(cookies.filter((cookie) => cookie.value === key).map((cookie) => cookie.httpOnly)).toEqual([true]);
    expect(await page.evaluate(() => document.cookie)).not.toContain(key);
    await Promise.all([page.waitForURL(/\/setup$/), page.locator('nav.sidebar').getByRole('link', { name: 'Setup' }).click()]);
    expect(errors).toEqual([]);

    await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: { path: { ...shared.sitePath.path, shareLinkId: link.id } }, body: { active: false } }));
    const closed = await page.reload();
    expect(closed?.status()).toBe(404);
    expect(await page.locator('main').innerText()).not.toContain('zebracorn');
    // Chromium reports the 404 answer itself; nothing else went wrong.
    expect(errors.filter((error) => !/status of 404/.test(error))).toEqual([]);
  }, 90_000);

  it('loads a visitor-auth site: without a JWT the visitor is sent to the backend, with one the site opens', async () => {
    const org = await newOrg(server, 'Visitor org');
    const guarded = await publishSite(org, await spaceWithPages(org, 'Member guides'), 'visitor-auth', 'Member Docs');
    const settings = await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/publishing/auth', { params: guarded.sitePath, body: { backend: 'custom', fallbackURL: `${backendOrigin}/login` } }));
    backendKey = settings.privateKey;
    const { page, errors } = await open();
    // Without a JWT: the site is not shown; the reader sends the visitor to the backend, saying where to come back.
    await page.goto(`${guarded.url}/setup`);
    expect(page.url().startsWith(`${backendOrigin}/login?location=`)).toBe(true);
    expect(new URL(page.url()).searchParams.get('location')).toBe(`${guarded.url}/setup`);
    expect(await page.locator('h1').innerText()).toBe('Sign in to Acme');
    // With one: the backend signs it with the site's key and sends the visitor back with it.
    await Promise.all([page.waitForURL(`${guarded.url}/setup`), page.locator('#sign-in').click()]);
    expect(await page.locator('main h1').innerText()).toBe('Setup');
    expect(page.url()).not.toContain('jwt_token');
    const cookies = await page.context().cookies();
    const jwtCookies = cookies.filter((cookie) => cookie.value.split('.').length === 3);
    expect(jwtCookies.map((cookie) => cookie.httpOnly)).toEqual([true]);
    expect(await page.content()).not.toContain(jwtCookies[0]!.value);
    // The cookie keeps the visitor in on the next visit.
    await page.goto(guarded.url);
    expect(await page.locator('main h1').innerText()).toBe('Introduction');
    expectNotBlank(await page.screenshot(), 1280, 800);
    expect(errors).toEqual([]);
  }, 90_000);

  describe('accessibility (axe-core)', () => {
    async function landmarks(page: Page) {
      return page.evaluate(() => ({
        skip: document.querySelector('a.skip-link')?.getAttribute('href'),
        skipTarget: document.querySelector('#content')?.tagName,
        banner: document.querySelectorAll('body > header').length,
        main: document.querySelectorAll('main').length,
        contentinfo: document.querySelectorAll('body > footer').length,
        navs: Array.from(document.querySelectorAll('nav')).map((nav) => nav.getAttribute('aria-label')),
        lang: document.documentElement.lang,
      }));
    }

    it.each([
      ['the home page', '', 200],
      ['a page with every block kind', '/blocks', 200],
      ['the search page', '/search?q=zebracorn', 200],
      ['the 404 page', '/no/such/page', 404],
    ])('%s has no serious or critical violation, a skip link and landmarks', async (_name, path, status) => {
      const { page, errors } = await open();
      const response = await page.goto(site.url + path);
      expect(response?.status()).toBe(status);
      expect(await seriousViolations(page)).toEqual([]);
      const found = await landmarks(page);
      expect(found).toMatchObject({ skip: '#content', skipTarget: 'MAIN', banner: 1, main: 1, contentinfo: 1, lang: 'en' });
      expect(found.navs).toContain('Pages');
      // Every nav is named, so screen readers tell them apart.
      expect(found.navs.every((label) => label)).toBe(true);
      // And in dark theme too (contrast of every colour).
      await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors.filter((error) => !(status === 404 && /status of 404/.test(error)))).toEqual([]);
    }, 60_000);
  });
});
