import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unwrap } from '@quire/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { hashPassword } from '../src/services/password-hashing.js';
import { upsertUserPasswordHash } from '../src/stores/user-password-store.js';
import { freePort } from './built.js';
import { haveChromium, launchChromium, seriousViolations } from './browser-support.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';

/*
 * What the app's browser suites share: a server on a fresh database whose public URL is the address the
 * browser uses (the session cookie's origin checks and every link the API answers hold for it), Debian's
 * Chromium, pages watched for console errors, dialogs and uncaught errors, sign-in through the app's own form,
 * axe-core in light and dark, and screenshots into apps/web/test-artifacts/ (git-ignored).
 */

export const WEB_ARTIFACTS = join(import.meta.dirname, '..', '..', 'web', 'test-artifacts');
export const WEB_PASSWORD = 'correct horse battery staple 42';

const webBuilt = existsSync(join(import.meta.dirname, '..', '..', 'web', 'dist', 'index.html'));
if (haveChromium && !webBuilt) console.warn('app browser suites: skipped, apps/web is not built (npx turbo run build)');
/** Whether the app's browser suites can run here: `describe.skipIf(!canRunApp)`. */
export const canRunApp = haveChromium && webBuilt;

export interface Person {
  email: string;
  token: string;
  userId: string;
}

export interface AppHarness {
  server: TestServer;
  browser: Browser;
  /** Console errors, uncaught errors and dialogs of every page opened so far: a suite ends expecting none. */
  errors: string[];
  /** A page in a fresh context (its own cookies), watched. */
  watchedPage(): Promise<{ context: BrowserContext; page: Page }>;
  /** A watched page signed in as `person` through the sign-in form, on the organizations screen. */
  signedIn(person: Person): Promise<{ context: BrowserContext; page: Page }>;
  signIn(page: Page, person: Person): Promise<void>;
  /** Gives a member a password (WEB_PASSWORD) so that they can sign in in the browser. */
  withPassword(member: { userId: string; token: string }): Promise<Person>;
  /** axe-core finds no serious or critical violation, in the light theme and in the dark one. */
  expectAccessible(page: Page, screen: string): Promise<void>;
  shoot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startAppHarness(options: TestServerOptions = {}): Promise<AppHarness> {
  mkdirSync(WEB_ARTIFACTS, { recursive: true });
  const server = await startOnFreePort(options);
  const browser = await launchChromium();
  const errors: string[] = [];
  const opened: Page[] = [];

  async function watchedPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    opened.push(page);
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      // Before signing in, the app asks for the current session and is told 401: Chromium logs that answer,
      // which the app expects (it opens the sign-in screen). Any other failed load is an error.
      const resource = message.location().url;
      if (resource.endsWith('/v1/auth/session') && message.text().includes('status of 401')) return;
      // The reader's pages (checked by reader-browser.test.ts) name no icon, so Chromium asks for /favicon.ico.
      if (new URL(page.url()).pathname.startsWith('/sites/') && new URL(resource).pathname === '/favicon.ico') return;
      errors.push(`${page.url()}: ${message.text()} (${resource})`);
    });
    page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
    page.on('dialog', (dialog) => {
      errors.push(`${page.url()}: a dialog opened (${dialog.message()})`);
      void dialog.dismiss();
    });
    return { context, page };
  }

  async function signIn(page: Page, person: Person): Promise<void> {
    await page.goto(`${server.url}/`);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your organizations' }).waitFor();
  }

  return {
    server,
    browser,
    errors,
    watchedPage,
    signIn,
    async signedIn(person) {
      const watched = await watchedPage();
      await signIn(watched.page, person);
      return watched;
    },
    async withPassword(member) {
      await upsertUserPasswordHash(server.db, member.userId, await hashPassword(WEB_PASSWORD), new Date().toISOString());
      const user = await unwrap(server.client(member.token).GET('/user'));
      return { email: (user as { email?: string }).email ?? '', token: member.token, userId: member.userId };
    },
    async expectAccessible(page, screen) {
      const found: string[] = [];
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        found.push(...(await seriousViolations(page)).map((line) => `${screen} (${colorScheme}): ${line}`));
      }
      await page.emulateMedia({ colorScheme: null });
      expect(found).toEqual([]);
    },
    async shoot(page, name) {
      await page.screenshot({ path: join(WEB_ARTIFACTS, `${name}.png`), fullPage: true });
    },
    async close() {
      // What the screens showed when something failed, for whoever reads the failure.
      for (const [index, page] of opened.entries()) await page.screenshot({ path: join(WEB_ARTIFACTS, `last-${index}.png`), fullPage: true }).catch(() => undefined);
      await browser.close();
      await server.close();
    },
  };
}

/**
 * The server on a port found free a moment before: the public URL must name the port before the server starts,
 * so the port is chosen first, and another test's process may take it meanwhile; then another port is chosen.
 */
async function startOnFreePort(options: TestServerOptions): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startTestServer({ ...options, env: { PORT: String(port), QUIRE_PUBLIC_URL: `http://127.0.0.1:${port}`, ...options.env } });
    } catch (error) {
      if (attempt >= 5 || !String((error as Error).message).includes('EADDRINUSE')) throw error;
    }
  }
}

/** Read once: whether the contract the app was built on has sign-in (the app's way in). */
export const contractHasSignIn = readFileSync(join(import.meta.dirname, '..', '..', '..', 'packages', 'api-types', 'src', 'generated', 'openapi.json'), 'utf8').includes('"operationId": "signIn"');
