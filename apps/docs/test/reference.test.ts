// Opens the rendered reference in headless Chromium with the network cut off, and checks that it renders:
// every tag of the spec is in the navigation, a sample of operations is shown, and nothing was fetched from
// anywhere but the local server.
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const html = readFileSync(join(here, '..', 'dist', 'index.html'));
const spec = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@quire/api-types/openapi.json'), 'utf8')) as {
  tags: { name: string }[];
  paths: Record<string, Record<string, unknown>>;
};
interface Operation { operationId: string; summary: string; tags: string[] }

let server: Server;
let browser: Browser;
let page: Page;
let origin: string;
const foreignRequests: string[] = [];

beforeAll(async () => {
  // Any path answers the page: the renderer routes on the client side.
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage();
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    foreignRequests.push(url);
    return route.abort();
  });
  await page.goto(origin + '/', { waitUntil: 'load' });
  await page.waitForSelector('text=Quire Management API', { timeout: 30_000 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('rendered API reference', () => {
  it('shows every tag of the spec in its navigation', async () => {
    const text = await page.locator('body').innerText();
    const missing = spec.tags.map((t) => t.name).filter((name) => !text.includes(name));
    expect(missing).toEqual([]);
  });

  it('lists a sample of operations under their tags once a tag is opened', async () => {
    const operations = Object.values(spec.paths).flatMap((item) => Object.values(item))
      .filter((op): op is Operation => typeof op === 'object' && op !== null && 'summary' in op);
    expect(operations.length).toBeGreaterThan(126);
    const step = Math.floor(operations.length / 12);
    const sample = operations.filter((_, i) => i % step === 0);
    const missing: string[] = [];
    for (const op of sample) {
      // The navigation lists a tag's operations when the tag is opened. A click toggles the tag, so it is opened
      // only when an earlier operation of the sample has not opened it already.
      // The renderer opens a tag's list after the click's own turn, so the summary is awaited, not sampled: a
      // loaded machine (CI) saw a list still closed right after the click.
      const summary = page.getByText(op.summary, { exact: true }).first();
      if (!(await summary.isVisible().catch(() => false))) await page.getByText(op.tags[0]!, { exact: true }).first().click();
      const shown = await summary.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false);
      if (!shown) missing.push(`${op.tags[0]}: ${op.summary}`);
    }
    expect(missing).toEqual([]);
  });

  it('fetches nothing from the internet (no CDN script, no web fonts)', () => {
    expect(foreignRequests).toEqual([]);
  });
});
