import { unwrap } from '@quire/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { createCollection, createSpace, newOrg, type TestOrg } from './helpers.js';
import { canRunApp, contractHasSignIn, startAppHarness, WEB_PASSWORD, type AppHarness, type Person } from './web-support.js';

/*
 * The app in Debian's Chromium (playwright-core), against the server `npm start` runs, on a fresh database:
 * a reviewer joins through an invitation; a writer signs in, opens a space, edits a page in a change request
 * and asks for a review; the reviewer, in
 * another browser context, approves; the writer merges and publishes; the page is read in the reader.
 * Every screen is photographed into apps/web/test-artifacts/ (git-ignored) and checked by axe-core in light
 * and dark (no serious or critical violation); no page may log a console error (a CSP violation is one) or
 * run what a writer typed (hostile Markdown and titles).
 */

/** What a hostile writer types: none of it may run in a reader's or reviewer's browser. */
const HOSTILE = [
  '<script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'onerror\'">',
  '[click me](javascript:window.__pwned=%22link%22)',
  '<svg onload="window.__pwned = \'svg\'"></svg>',
].join('\n\n');

describe.skipIf(!canRunApp || !contractHasSignIn)('the app in Chromium', () => {
  let app: AppHarness;
  let server: AppHarness['server'];
  let org: TestOrg;
  let writer: Person;
  let inviteUrl: string;
  const reviewerEmail = `rita-${Date.now()}@example.com`;
  let spaceId: string;
  let pageId: string;
  let siteId: string;
  const fixtures = contentFixtures(() => server);

  beforeAll(async () => {
    app = await startAppHarness();
    server = app.server;
    org = await newOrg(server, 'Acme');
    writer = await app.withPassword(org);
    const invited = await unwrap(org.client.POST('/orgs/{organizationId}/invites', { params: { path: { organizationId: org.organizationId } }, body: { emails: [reviewerEmail], role: 'review' } }));
    inviteUrl = invited.invites[0]!.url!;

    const operations = await createCollection(org, { title: 'Operations' });
    await createSpace(org, { title: 'Runbooks', parent: operations.id, emoji: '📕' });
    const space = await createSpace(org, { title: 'Handbook' });
    spaceId = space.id;
    const update = await fixtures.editMain(org, spaceId, [
      { operation: 'insert_page', title: 'Getting started', ref: 'start', document: md('# Welcome\n\nThe first page of the handbook.\n\n{% hint style="info" %}\nRead this first.\n{% endhint %}\n') },
      { operation: 'insert_page', title: 'Install <img src=x onerror="window.__pwned=\'title\'">', document: md(`Steps to install.\n\n${HOSTILE}\n`) },
    ]);
    pageId = fixtures.pageOf(update, 'start');
    const params = { path: { organizationId: org.organizationId } };
    const site = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params, body: { title: 'Acme Docs', visibility: 'public', spaces: [spaceId] } as never }));
    siteId = site.id;
  });

  afterAll(async () => {
    await app?.close();
  });

  const watchedPage = () => app.watchedPage();
  const contextFor = (person: Person) => app.signedIn(person);
  const expectAccessible = (page: Page, screen: string) => app.expectAccessible(page, screen);
  const shoot = (page: Page, name: string) => app.shoot(page, name);

  async function expectNothingRan(page: Page): Promise<void> {
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  }

  it('takes a page from an invitation and writing to review, merge, publishing and the reader', async () => {
    const second = await watchedPage();
    await second.page.goto(inviteUrl);
    await second.page.getByRole('heading', { name: 'Join Acme' }).waitFor();
    await expectAccessible(second.page, 'join');
    await shoot(second.page, '00-join');
    await second.page.getByLabel('Your name').fill('Rita Reviewer');
    await second.page.getByLabel('Password').fill(WEB_PASSWORD);
    await second.page.getByRole('button', { name: 'Accept invitation' }).click();
    await second.page.getByRole('heading', { name: 'Acme' }).waitFor();

    const { page: signInPage } = await watchedPage();
    await signInPage.goto(`${server.url}/o/${org.organizationId}`);
    await signInPage.getByRole('button', { name: 'Sign in' }).waitFor();
    await expectAccessible(signInPage, 'sign-in');
    await shoot(signInPage, '01-sign-in');
    await signInPage.close();

    const { page } = await contextFor(writer);
    await page.getByRole('link', { name: 'Handbook' }).waitFor();
    await page.getByRole('link', { name: 'Operations' }).waitFor();
    await page.getByRole('link', { name: /Runbooks/ }).waitFor();
    await expectAccessible(page, 'organizations');
    await shoot(page, '02-organizations');

    await page.getByRole('link', { name: 'Handbook' }).click();
    await page.getByRole('heading', { name: 'Getting started' }).waitFor();
    await page.getByRole('article').getByText('The first page of the handbook.').waitFor();
    await expectAccessible(page, 'space');
    await shoot(page, '03-space');

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: /^Install/ }).click();
    await page.getByText('Steps to install.').waitFor();
    await expectNothingRan(page);
    await shoot(page, '04-hostile-page');

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Getting started' }).click();
    await page.getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByRole('textbox', { name: 'Page content' });
    await editor.waitFor();
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n\nWritten in the app, reviewed and published.');
    await page.getByText('All changes saved').waitFor();
    await page.getByRole('article', { name: 'Preview of Getting started' }).getByText('Written in the app, reviewed and published.').waitFor();
    await expectAccessible(page, 'change request');
    await shoot(page, '05-editor');
    const changeRequestUrl = page.url();
    const changeRequestId = /~\/changes\/(\d+)/.exec(changeRequestUrl)![1]!;
    expect(await fixtures.getSpace(org.client, spaceId)).toBeTruthy();
    const stored = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { spaceId, changeRequestId, pageId }, query: { format: 'markdown' } } }));
    expect(stored.markdown).toContain('Written in the app, reviewed and published.');

    // An edit made elsewhere meanwhile is shown, never overwritten.
    await fixtures.editCr(org.client, spaceId, changeRequestId, [{ operation: 'update_page', page: pageId, document: md('# Welcome\n\nChanged through the API.\n') }]);
    await editor.click();
    await page.keyboard.type(' More.');
    await page.getByText('Not saved: this page was changed elsewhere').waitFor();
    await page.getByText('Changed through the API.').first().waitFor();
    await shoot(page, '06-conflict');
    const after = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { spaceId, changeRequestId, pageId }, query: { format: 'markdown' } } }));
    expect(after.markdown).toContain('Changed through the API.');
    await page.getByRole('button', { name: 'Keep my version' }).click();
    await page.getByText('All changes saved').waitFor();

    await page.getByRole('checkbox', { name: 'Rita Reviewer' }).check();
    await page.getByRole('button', { name: 'Request review' }).click();
    await page.getByText('Review requested.').waitFor();

    await second.page.goto(changeRequestUrl);
    await second.page.getByRole('button', { name: 'Approve' }).click();
    await second.page.getByText('You approved this change request.').waitFor();
    await expectNothingRan(second.page);
    await expectAccessible(second.page, 'review');
    await shoot(second.page, '07-review');

    await page.reload();
    await page.getByRole('button', { name: 'Merge' }).click();
    await page.getByText('This change request is merged.').waitFor();
    await shoot(page, '08-merged');

    await page.goto(`${server.url}/o/${org.organizationId}/sites/${siteId}`);
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('The site is published.').waitFor();
    await expectAccessible(page, 'site');
    await shoot(page, '09-site');
    const published = await page.getByRole('definition').getByRole('link').getAttribute('href');

    await page.goto(published!);
    await page.getByText('Written in the app, reviewed and published.').waitFor();
    await shoot(page, '10-reader');
    await expectNothingRan(page);

    expect(app.errors).toEqual([]);
  }, 240_000);
});
