import { mkdirSync, writeFileSync } from 'node:fs';
import { unwrap } from '@quire/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, expectNotBlank, haveChromium, launchChromium, publishSite, seriousViolations, watchedPage, type PublishedSite, type Watched } from './browser-support.js';
import { freePort } from './built.js';
import { contentFixtures } from './content-fixtures.js';
import { createSpace, newOrg } from './helpers.js';
import { startTestServer, type TestServer } from './server.js';

/*
 * The reader as readers see it (issue 30), in Chromium at a phone's, a tablet's and a desktop's width, in the
 * light and the dark colour scheme of the system: nothing wider than the screen, the page tree in a drawer on
 * narrow screens (opened, walked and closed by keyboard), the search behind an icon there, the theme of the
 * system unless the site fixes one (and no frame painted in the other), hints that say what they are, tabs
 * switched by click and by keyboard (every panel read without script), tables aligned as their Markdown
 * says, and search snippets in plain text with the matched words marked.
 *
 * A full-page screenshot of a page holding every block is kept for each width and scheme under
 * test/reports/reader-look/ (look at them). With READER_SCREENSHOTS=1 the README's screenshots
 * (apps/reader/docs/, phone and desktop, light and dark) are written again too.
 */

const REPORTS = new URL('./reports/reader-look/', import.meta.url);
const README_SHOTS = new URL('../../reader/docs/', import.meta.url);
const writeReadmeShots = process.env.READER_SCREENSHOTS === '1';

const PNG_4x3 = (() => {
  const png = new PNG({ width: 4, height: 3 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([40, 120, 200, 255], i);
  return PNG.sync.write(png).toString('base64');
})();

/** Every block the reader renders, the hints first so that a screenshot of the first screen shows them. */
const blocksMarkdown = (fileId: string) => `Every kind of block a page holds, as readers see it.

{% hint style="info" %}
An **info** hint: something worth knowing.
{% endhint %}

{% hint style="success" %}
A success hint: it worked.
{% endhint %}

{% hint style="warning" %}
A warning hint: mind the \`--force\` flag.
{% endhint %}

{% hint style="danger" %}
A danger hint: this deletes data.
{% endhint %}

> [!TIP]
> A GitHub alert is a hint too.

> A quotation from someone wise, which is not a hint.

## Tabs

{% tabs %}
{% tab title="npm" %}
\`\`\`bash
npm install quire
\`\`\`
{% endtab %}

{% tab title="Yarn" %}
Run \`yarn add quire\`, then **restart** the server.
{% endtab %}

{% tab title="From source" %}
1. Clone the repository.
2. Run \`npm ci\`.
{% endtab %}
{% endtabs %}

## Code

\`\`\`ts
// Answers the question.
export function answer(question: string): number {
  const known = { life: 42 } as const;
  return question === 'life' ? known.life : Number.NaN;
}
\`\`\`

\`\`\`bash
quire publish --site docs --yes --message "a very long command line that does not fit on the screen of a phone at all"
\`\`\`

## Tables

| Option | Default | Meaning |
| --- | --- | --- |
| --yes | false | Answer quokka questions without asking |
| --dry-run | false | Show what would change |

| Left | Centre | Right |
| :--- | :---: | ---: |
| a | b | c |
| longer text | longer text | longer text |

| Column one | Column two | Column three | Column four | Column five | Column six | Column seven |
| --- | --- | --- | --- | --- | --- | --- |
| a wide table | that scrolls | inside its own | box | on a phone | and never | the page |

## Lists

- first item with \`inline code\`, **bold**, _emphasis_ and ~~strike~~
- second item
  - nested item

1. step one
2. step two

- [x] a done task
- [ ] a task to do

## Image and links

![A blue block](/files/${fileId})

Read [the setup](setup.md#install-it), an [external page](https://example.com/) and a footnote[^1].

---

[^1]: The footnote's text.
`;

const WIDTHS = [360, 768, 1280] as const;
if (!haveChromium) console.warn(`reader-look: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const SCHEMES = ['light', 'dark'] as const;

describe.skipIf(!haveChromium)('reader look in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let site: PublishedSite;
  let origin: string;
  const content = contentFixtures(() => server);
  const contexts: BrowserContext[] = [];

  /** A page in a fresh context of the given width and system colour scheme; the theme seen on first paint is recorded. */
  async function open(width: number, scheme: 'light' | 'dark'): Promise<Watched> {
    const context = await browser.newContext({ viewport: { width, height: width < 500 ? 740 : 800 }, colorScheme: scheme });
    contexts.push(context);
    // Nothing is painted before <body> exists: the theme the document holds then is the one of the first frame.
    await context.addInitScript(() => {
      new MutationObserver((_changes, observer) => {
        if (!document.body) return;
        (window as unknown as { firstPaintTheme: string | null }).firstPaintTheme = document.documentElement.getAttribute('data-theme');
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    return watchedPage(context, [origin]);
  }

  const theme = (page: Page) => page.evaluate(() => document.documentElement.getAttribute('data-theme'));
  const firstPaintTheme = (page: Page) => page.evaluate(() => (window as unknown as { firstPaintTheme: string | null }).firstPaintTheme);

  /** Elements that stick out of the viewport (other than inside a box that scrolls or clips them). */
  const overflowing = (page: Page) =>
    page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const clipped = (element: Element): boolean => {
        for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
          if (getComputedStyle(parent).overflowX !== 'visible') return true;
        }
        return false;
      };
      const out: string[] = [];
      if (document.documentElement.scrollWidth > width) out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
      for (const element of Array.from(document.body.querySelectorAll('*'))) {
        const box = element.getBoundingClientRect();
        if (box.width === 0 || getComputedStyle(element).visibility === 'hidden' || clipped(element)) continue;
        if (box.left < -0.5 || box.right > width + 0.5) out.push(`${element.tagName.toLowerCase()}.${element.className}: ${Math.round(box.left)}..${Math.round(box.right)}`);
      }
      return out;
    });

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startTestServer({ env: { PORT: String(port), QUIRE_PUBLIC_URL: origin } });
    browser = await launchChromium();
    const org = await newOrg(server, 'Look org');
    const space = await createSpace(org, { title: 'Guides' });
    const files = await content.editMain(org, space.id, [{ operation: 'insert_files', files: [{ name: 'block.png', base64: PNG_4x3, ref: 'block' }] }]);
    await content.editMain(org, space.id, [
      { operation: 'insert_page', title: 'Introduction', ref: 'intro', document: { markdown: 'Welcome to the **Acme** guides.\n\n## Getting started\n\nRead [the setup](setup.md) first.\n' } },
      { operation: 'insert_page', title: 'Setup', slug: 'setup', ref: 'setup', document: { markdown: '## Install it\n\nRun the zebracorn installer.\n\n## Configure it\n\nSet the options.\n' } },
      { operation: 'insert_page', title: 'Advanced', slug: 'advanced', ref: 'advanced', into: 'setup', document: { markdown: 'Nested page about tuning.' } },
      { operation: 'insert_page', title: 'Every block', slug: 'blocks', ref: 'blocks', document: { markdown: blocksMarkdown(files.insertedFiles![0]!.id) } },
    ]);
    await content.runJobs();
    site = await publishSite(org, space.id, 'public', 'Acme Docs');
    mkdirSync(REPORTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await server?.close();
  });

  for (const width of WIDTHS) {
    for (const scheme of SCHEMES) {
      it(`at ${width} px in the ${scheme} scheme: the system's theme from the first frame, nothing wider than the screen, axe clean`, async () => {
        const { page, errors } = await open(width, scheme);
        expect((await page.goto(`${site.url}/blocks`))?.status()).toBe(200);
        // The image loads lazily: brought into view, then the page goes back to its top for the screenshots.
        await page.locator('article img').scrollIntoViewIfNeeded();
        await expect.poll(() => page.locator('article img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(4);
        await page.evaluate(() => window.scrollTo(0, 0));
        const full = await page.screenshot({ fullPage: true });
        writeFileSync(new URL(`blocks-${width}-${scheme}.png`, REPORTS), full);
        if (writeReadmeShots && width !== 768) {
          mkdirSync(README_SHOTS, { recursive: true });
          writeFileSync(new URL(`reader-${width === 360 ? 'phone' : 'desktop'}-${scheme}.png`, README_SHOTS), await page.screenshot());
        }
        expectNotBlank(full, width, await page.evaluate(() => document.documentElement.scrollHeight));
        expect(await theme(page)).toBe(scheme);
        expect(await firstPaintTheme(page)).toBe(scheme);
        expect(await overflowing(page)).toEqual([]);
        // The copy button sits above the code, never over its first line.
        for (const block of await page.locator('.code-block').all()) {
          const button = (await block.locator('button.copy').boundingBox())!;
          const code = (await block.locator('pre code').boundingBox())!;
          expect(button.y + button.height).toBeLessThanOrEqual(code.y + 0.5);
        }
        // On narrow screens the page tree is in a closed drawer and the search behind an icon.
        const narrow = width < 1024;
        expect(await page.locator('button.menu-toggle').isVisible()).toBe(narrow);
        expect(await page.locator('nav.sidebar').isVisible()).toBe(!narrow);
        expect(await page.locator('header form.search input[name=q]').isVisible()).toBe(width >= 640);
        expect(await seriousViolations(page)).toEqual([]);
        expect(errors).toEqual([]);
      }, 90_000);
    }
  }

  it('opens the drawer by keyboard, keeps the focus in it, closes it with Escape and gives the focus back', async () => {
    const { page, errors } = await open(360, 'light');
    await page.goto(site.url);
    const focusedIn = () => page.evaluate(() => ({ drawer: Boolean(document.activeElement?.closest('#sidebar')), text: document.activeElement?.textContent?.trim(), cls: document.activeElement?.className }));
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect((await focusedIn()).cls).toBe('menu-toggle');
    const menu = page.locator('button.menu-toggle');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.locator('nav.sidebar').isVisible()).toBe(true);
    // The focus moves into the drawer, onto the current page's link.
    expect(await focusedIn()).toMatchObject({ drawer: true, text: 'Introduction' });
    // The drawer slides in (0.2 s; not for readers who ask for reduced motion): measured once in place.
    await expect.poll(async () => (await page.locator('nav.sidebar').boundingBox())?.x ?? -1).toBeGreaterThanOrEqual(0);
    const drawer = (await page.locator('nav.sidebar').boundingBox())!;
    expect(drawer.x + drawer.width).toBeLessThanOrEqual(360);
    // Tab and Shift+Tab go round inside the drawer while it is open.
    for (let step = 0; step < 8; step++) {
      await page.keyboard.press('Tab');
      expect((await focusedIn()).drawer).toBe(true);
    }
    for (let step = 0; step < 8; step++) {
      await page.keyboard.press('Shift+Tab');
      expect((await focusedIn()).drawer).toBe(true);
    }
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect((await focusedIn()).cls).toBe('menu-toggle');
    await expect.poll(() => page.locator('nav.sidebar').isVisible()).toBe(false);
    // Open again with Space and follow a link by keyboard.
    await page.keyboard.press('Space');
    for (let step = 0; step < 10 && (await focusedIn()).text !== 'Setup'; step++) await page.keyboard.press('Tab');
    await Promise.all([page.waitForURL(`${site.url}/setup`), page.keyboard.press('Enter')]);
    expect(await page.locator('main h1').innerText()).toBe('Setup');
    expect(await page.locator('nav.sidebar').isVisible()).toBe(false);
    if (writeReadmeShots) {
      await page.locator('button.menu-toggle').click();
      await expect.poll(() => page.locator('nav.sidebar').isVisible()).toBe(true);
      await page.waitForTimeout(300);
      writeFileSync(new URL('reader-phone-menu.png', README_SHOTS), await page.screenshot());
    }
    expect(errors).toEqual([]);
  }, 60_000);

  it('opens the search from its icon on a phone, shows live results, and closes with Escape', async () => {
    const { page, errors } = await open(360, 'dark');
    await page.goto(site.url);
    const input = page.locator('header form.search input[name=q]');
    const opener = page.locator('header button.search-open');
    expect(await input.isVisible()).toBe(false);
    await opener.click();
    expect(await opener.getAttribute('aria-expanded')).toBe('true');
    expect(await input.isVisible()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('q');
    await input.fill('zebracorn');
    await expect.poll(() => page.locator('form.search .live-results a').first().innerText(), { timeout: 10_000 }).toContain('Setup');
    expect(await overflowing(page)).toEqual([]);
    await page.keyboard.press('Escape');
    expect(await input.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('search-open');
    expect(errors).toEqual([]);
  }, 60_000);

  it('tells hints from quotes: each style its colour, an icon and an accessible name', async () => {
    const { page, errors } = await open(1280, 'light');
    await page.goto(`${site.url}/blocks`);
    const hints = await page.locator('article .hint').evaluateAll((nodes) =>
      nodes.map((node) => ({
        style: node.className,
        role: node.getAttribute('role'),
        name: node.getAttribute('aria-label'),
        border: getComputedStyle(node).borderLeftColor,
        background: getComputedStyle(node).backgroundColor,
        icon: getComputedStyle(node, '::before').content,
      })),
    );
    expect(hints.map((hint) => [hint.style, hint.role, hint.name])).toEqual([
      ['hint hint-info', 'note', 'Info'],
      ['hint hint-success', 'note', 'Success'],
      ['hint hint-warning', 'note', 'Warning'],
      ['hint hint-danger', 'note', 'Danger'],
      ['hint hint-success', 'note', 'Success'],
    ]);
    expect(new Set(hints.slice(0, 4).map((hint) => hint.border)).size).toBe(4);
    expect(new Set(hints.slice(0, 4).map((hint) => hint.background)).size).toBe(4);
    expect(hints.every((hint) => hint.icon !== 'none' && hint.icon !== '')).toBe(true);
    const quote = await page.locator('article blockquote').evaluate((node) => ({ border: getComputedStyle(node).borderLeftColor, icon: getComputedStyle(node, '::before').content }));
    expect(hints.map((hint) => hint.border)).not.toContain(quote.border);
    expect(quote.icon).toBe('none');
    expect(errors).toEqual([]);
  }, 60_000);

  for (const scheme of SCHEMES) {
    it(`switches tabs by click and by keyboard (arrows, Home, End), one panel shown, axe clean in the ${scheme} scheme`, async () => {
      const { page, errors } = await open(1280, scheme);
      await page.goto(`${site.url}/blocks`);
      const tabset = page.locator('article .tabset');
      const state = () =>
        tabset.evaluate((set) => ({
          selected: Array.from(set.querySelectorAll('[role=tab]')).map((tab) => tab.getAttribute('aria-selected')),
          inTabOrder: Array.from(set.querySelectorAll<HTMLElement>('[role=tab]')).map((tab) => tab.tabIndex),
          shown: Array.from(set.querySelectorAll<HTMLElement>('[role=tabpanel]')).map((panel) => panel.checkVisibility()),
          focused: document.activeElement?.getAttribute('role') === 'tab' ? document.activeElement.textContent : null,
        }));
      const tabs = page.getByRole('tab');
      expect(await tabs.allTextContents()).toEqual(['npm', 'Yarn', 'From source']);
      // Each tab controls the panel that it names; ids are unique on the page.
      for (const tab of await tabs.all()) {
        const panel = page.locator(`[id="${await tab.getAttribute('aria-controls')}"]`);
        expect(await panel.getAttribute('role')).toBe('tabpanel');
        expect(await panel.getAttribute('aria-labelledby')).toBe(await tab.getAttribute('id'));
      }
      expect(await page.evaluate(() => { const ids = Array.from(document.querySelectorAll('[id]')).map((node) => node.id); return ids.length === new Set(ids).size; })).toBe(true);
      expect(await state()).toEqual({ selected: ['true', 'false', 'false'], inTabOrder: [0, -1, -1], shown: [true, false, false], focused: null });
      // The panel titles, there for pages read without script, are not shown twice.
      expect(await tabset.locator('.tabset-title').first().isVisible()).toBe(false);
      await tabs.nth(1).click();
      expect(await state()).toMatchObject({ selected: ['false', 'true', 'false'], shown: [false, true, false] });
      expect(await page.getByRole('tabpanel').innerText()).toContain('restart');
      await page.keyboard.press('ArrowRight');
      expect(await state()).toEqual({ selected: ['false', 'false', 'true'], inTabOrder: [-1, -1, 0], shown: [false, false, true], focused: 'From source' });
      await page.keyboard.press('ArrowRight');
      expect(await state()).toMatchObject({ selected: ['true', 'false', 'false'], focused: 'npm' });
      await page.keyboard.press('End');
      expect(await state()).toMatchObject({ selected: ['false', 'false', 'true'], focused: 'From source' });
      await page.keyboard.press('Home');
      expect(await state()).toMatchObject({ selected: ['true', 'false', 'false'], focused: 'npm' });
      await page.keyboard.press('ArrowLeft');
      expect(await state()).toMatchObject({ selected: ['false', 'false', 'true'], shown: [false, false, true], focused: 'From source' });
      // Tab leaves the tab list for the shown panel.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('tabpanel');
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('ArrowLeft');
      await tabset.scrollIntoViewIfNeeded();
      writeFileSync(new URL(`tabs-${scheme}.png`, REPORTS), await tabset.screenshot());
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    }, 60_000);
  }

  it('shows every tab under its title to a reader without script', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: false });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${site.url}/blocks`);
    const tabset = page.locator('article .tabset');
    expect(await tabset.locator('[role=tablist]').isVisible()).toBe(false);
    const panels = await tabset.locator('[role=tabpanel]').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).checkVisibility() && (node as HTMLElement).innerText));
    expect(panels).toEqual([expect.stringContaining('npm install quire'), expect.stringContaining('restart'), expect.stringContaining('Clone the repository')]);
    expect(await tabset.locator('.tabset-title').allInnerTexts()).toEqual(['npm', 'Yarn', 'From source']);
    await tabset.scrollIntoViewIfNeeded();
    writeFileSync(new URL('tabs-no-script.png', REPORTS), await tabset.screenshot());
  }, 60_000);

  it('aligns table cells as their Markdown says, and none otherwise; highlights code in each theme', async () => {
    const { page, errors } = await open(1280, 'light');
    await page.goto(`${site.url}/blocks`);
    const aligns = await page.locator('article table').evaluateAll((tables) =>
      tables.map((table) => Array.from(table.querySelectorAll('thead th')).map((cell) => getComputedStyle(cell).textAlign)),
    );
    expect(aligns[0]).toEqual(['start', 'start', 'start']);
    expect(aligns[1]).toEqual(['left', 'center', 'right']);
    const keywordColour = () => page.locator('article pre code .hljs-keyword').first().evaluate((node) => getComputedStyle(node).color);
    const textColour = () => page.locator('article pre code').first().evaluate((node) => getComputedStyle(node).color);
    const light = await keywordColour();
    expect(light).not.toBe(await textColour());
    await page.locator('button.theme-toggle').click();
    expect(await theme(page)).toBe('dark');
    expect(await keywordColour()).not.toBe(light);
    expect(await keywordColour()).not.toBe(await textColour());
    expect(errors).toEqual([]);
  }, 60_000);

  it('shows search snippets as plain text around the match, the matched words marked, under the section found', async () => {
    const { page, errors } = await open(1280, 'light');
    await page.goto(`${site.url}/search?q=quokka`);
    const result = page.locator('ol.results > li.result').first();
    expect(await result.locator('> a').innerText()).toBe('Every block');
    expect(await result.getByRole('link', { name: 'Tables' }).count()).toBe(1);
    const snippet = result.locator('p.snippet').first();
    expect(await snippet.locator('mark').allInnerTexts()).toEqual(['quokka']);
    const text = await snippet.innerText();
    expect(text).toContain('Answer quokka questions');
    expect(text).not.toMatch(/\||---/);
    expect(errors).toEqual([]);
  }, 60_000);

  it('follows the system unless the reader chose, remembers the choice, and keeps a theme the site fixes', async () => {
    const { page, errors } = await open(1280, 'dark');
    await page.goto(site.url);
    expect(await theme(page)).toBe('dark');
    const toggle = page.locator('button.theme-toggle');
    await expect.poll(() => toggle.isVisible()).toBe(true);
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await toggle.click();
    expect(await theme(page)).toBe('light');
    await page.reload();
    expect(await theme(page)).toBe('light');
    expect(await firstPaintTheme(page)).toBe('light');
    // The site fixes the dark theme: the reader's earlier choice of light gives way, and no toggle shows.
    await unwrap(site.org.client.PUT('/orgs/{organizationId}/sites/{siteId}/customization', { params: site.sitePath, body: { themes: { default: 'dark', toggeable: false } } as never }));
    await expect.poll(async () => (await page.reload(), theme(page)), { timeout: 10_000 }).toBe('dark');
    expect(await firstPaintTheme(page)).toBe('dark');
    expect(await toggle.count()).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);
});
