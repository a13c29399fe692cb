import { existsSync } from 'node:fs';
import { unwrap } from '@quire/client';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { expect } from 'vitest';
import type { TestOrg } from './helpers.js';

/*
 * What the reader's browser suites share: Debian's Chromium driven by playwright-core (never a browser
 * download), pages watched for console errors, axe-core's serious and critical violations, and a published
 * site of a space.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
}

/** Console errors and uncaught exceptions of one browser page. */
export interface Watched {
  page: Page;
  errors: string[];
}

/** A page of `context` that records console errors and refuses every request outside `origins`. */
export async function watchedPage(context: BrowserContext, origins: string[]): Promise<Watched> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (origins.some((origin) => url.startsWith(origin))) return route.continue();
    errors.push(`request outside the test servers: ${url}`);
    return route.abort();
  });
  return { page, errors };
}

/** Runs axe-core in the page; answers its serious and critical violations, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Through the DevTools protocol, not a <script> tag: the page's CSP forbids inline script, and stays on.
  await page.evaluate(axe.source);
  const result = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const first = await run(document, { resultTypes: ['violations', 'incomplete'] });
    // Text scrolled out of its own box (the far columns of a wide table) is undecided for axe, as obscured;
    // each is brought into view in its box and checked again, so that its contrast is decided too.
    const retried: typeof first.violations = [];
    for (const item of first.incomplete.filter((entry) => entry.id === 'color-contrast')) {
      const kept = [];
      for (const node of item.nodes) {
        const element = document.querySelector(String(node.target[0]));
        const inScroller = element?.parentElement?.closest('pre, table, .code-block');
        if (!element || !inScroller || !node.any.some((check) => (check.data as { messageKey?: string } | null)?.messageKey === 'elmPartiallyObscured')) {
          kept.push(node);
          continue;
        }
        element.scrollIntoView({ block: 'nearest', inline: 'nearest' });
        const again = await run(element, { runOnly: ['color-contrast'], resultTypes: ['violations', 'incomplete'] });
        retried.push(...again.violations, ...again.incomplete);
      }
      item.nodes = kept;
    }
    window.scrollTo(0, 0);
    return { violations: [...first.violations, ...retried], incomplete: first.incomplete.filter((item) => item.nodes.length > 0) };
  });
  // A contrast axe could not decide (a colour it cannot parse, text over an image) would hide a failure: it counts too.
  const undecided = result.incomplete.filter((item) => item.id === 'color-contrast');
  return [...result.violations, ...undecided]
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.slice(0, 3).map((node) => `${node.target.join(' ')}: ${node.failureSummary?.split('\n').slice(1).join(' ').trim()}`).join(' | ')}`);
}

/** A PNG screenshot is real and not blank: it decodes, has the expected size and many distinct colours. */
export function expectNotBlank(png: Buffer, width: number, height: number): Set<number> {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  const image = PNG.sync.read(png);
  expect([image.width, image.height]).toEqual([width, height]);
  const colours = new Set<number>();
  let inked = 0;
  const background = image.data.readUInt32BE(0);
  for (let i = 0; i < image.data.length; i += 4) {
    const colour = image.data.readUInt32BE(i);
    colours.add(colour);
    if (colour !== background) inked++;
  }
  // Text with anti-aliasing draws dozens of shades; a blank or single-colour page has one or two.
  expect(colours.size).toBeGreaterThan(32);
  expect(inked / (image.width * image.height)).toBeGreaterThan(0.01);
  return colours;
}

export interface PublishedSite {
  org: TestOrg;
  siteId: string;
  sitePath: { path: { organizationId: string; siteId: string } };
  /** Absolute address of the site's first page, as the API reports it (`urls.published`). */
  url: string;
}

export async function publishSite(org: TestOrg, spaceId: string, visibility: 'public' | 'share-link' | 'visitor-auth', title: string): Promise<PublishedSite> {
  const params = { path: { organizationId: org.organizationId } };
  const created = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params, body: { title, visibility, spaces: [spaceId] } as never }));
  const sitePath = { path: { organizationId: org.organizationId, siteId: created.id } };
  const published = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath }));
  return { org, siteId: created.id, sitePath, url: published.urls.published! };
}
