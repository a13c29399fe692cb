import { unwrap } from '@quire/client';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './built.js';
import { contentFixtures, md } from './content-fixtures.js';
import { createSpace, newOrg, type TestOrg } from './helpers.js';
import { startOidcProvider, type OidcTestProvider } from './oidc-fixtures.js';
import { canRunApp, contractHasSignIn, startAppHarness, type AppHarness, type Person } from './web-support.js';

/*
 * Review in the app, in Debian's Chromium on SQLite (a browser flow does not depend on the dialect): a
 * reviewer signs in through the organization's identity provider (a real oidc-provider on loopback); the
 * writer reads the change request's diff page by page, rendered and as Markdown, asks the reviewer, updates
 * from main (cleanly, then with a conflict named); both discuss in comments (hostile Markdown never runs);
 * pages of the main content are discussed on the space screen too; a moved page is said in the diff; the
 * search box in the header finds pages by keyboard. Screenshots go to apps/web/test-artifacts/review-*.
 */

const HOSTILE = '<img src="x" onerror="window.__pwned = \'comment\'"> [run](javascript:window.__pwned=1)';

describe.skipIf(!canRunApp || !contractHasSignIn)('review in the app', () => {
  let app: AppHarness;
  let idp: OidcTestProvider;
  let org: TestOrg;
  let writer: Person;
  let spaceId: string;
  let changeRequestUrl: string;
  let changeRequestId: string;
  let reviewer: { context: BrowserContext; page: Page };
  let writerPage: Page;
  const fixtures = contentFixtures(() => app.server);

  beforeAll(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    idp = await startOidcProvider({ redirectUri: `${publicUrl}/auth/oidc/callback` });
    app = await startAppHarness({
      env: {
        PORT: String(port),
        QUIRE_PUBLIC_URL: publicUrl,
        QUIRE_OIDC_ISSUER: idp.issuer,
        QUIRE_OIDC_CLIENT_ID: idp.clientId,
        QUIRE_OIDC_CLIENT_SECRET: idp.clientSecret,
        QUIRE_OIDC_NAME: 'Acme Login',
        QUIRE_OIDC_DEFAULT_ROLE: 'review',
      },
    });
    org = await newOrg(app.server, 'Acme');
    writer = await app.withPassword(org);
    // Sign-ins through the provider join this organization (what QUIRE_OIDC_ORGANIZATION gives an installation).
    const oidc = app.server.running.services.oidc!;
    app.server.running.services.oidc = { ...oidc, organizationId: org.organizationId, allowedDomains: [] };

    spaceId = (await createSpace(org, { title: 'Handbook' })).id;
    const main = await fixtures.editMain(org, spaceId, [
      { operation: 'insert_page', title: 'Getting started', ref: 'start', document: md('# Welcome\n\n{% tabs %}\n{% tab title="Linux" %}\nRun setup.sh.\n{% endtab %}\n{% endtabs %}\n\nThe first page of the handbook.\n\nKeep this paragraph.\n') },
      { operation: 'insert_page', title: 'Old notes', ref: 'old', document: md('Notes nobody reads any more.\n') },
      { operation: 'insert_page', title: 'Glossary', ref: 'glossary', document: md('A zephyrine term explained.\n') },
      { operation: 'insert_page', title: 'FAQ', ref: 'faq', document: md('Questions people ask.\n') },
    ]);
    const cr = await fixtures.createCr(org.client, spaceId);
    changeRequestId = String(cr.number);
    await fixtures.editCr(org.client, spaceId, cr.id, [
      { operation: 'update_page', page: fixtures.pageOf(main, 'start'), document: md('# Welcome\n\n{% tabs %}\n{% tab title="Linux" %}\nRun setup.sh --now.\n{% endtab %}\n{% endtabs %}\n\nThe first page of the handbook, rewritten.\n\nKeep this paragraph.\n') },
      { operation: 'insert_page', title: 'Install', document: md('Run the installer.\n') },
      { operation: 'delete_page', page: fixtures.pageOf(main, 'old') },
      // Moved, content untouched: the diff says where from and where to, and shows no content change.
      { operation: 'update_page', page: fixtures.pageOf(main, 'faq'), into: fixtures.pageOf(main, 'start') },
    ]);
    changeRequestUrl = `${app.server.url}/o/${org.organizationId}/s/${spaceId}/~/changes/${changeRequestId}`;
    // Main moves on: once elsewhere (the update pulls it in), then on the very line the change request edits.
    await fixtures.editMain(org, spaceId, [{ operation: 'update_page', page: fixtures.pageOf(main, 'glossary'), document: md('A zephyrine term, explained better.\n') }]);
    await fixtures.runJobs();
    writerPage = (await app.signedIn(writer)).page;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await idp?.close();
  });

  const focused = (locator: Locator) => expect.poll(() => locator.evaluate((element) => element === document.activeElement));
  const text = async (locator: Locator) => (await locator.allTextContents()).join('\n').trim();

  async function expectNothingRan(page: Page): Promise<void> {
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  }

  it('signs a reviewer in through the identity provider, from the sign-in screen', async () => {
    idp.addAccount({ sub: 'olivia', email: 'olivia@example.com', email_verified: true, name: 'Olivia Reviewer' });
    idp.nextAccount = 'olivia';
    reviewer = await app.watchedPage();
    await reviewer.page.goto(changeRequestUrl);
    const button = reviewer.page.getByRole('link', { name: 'Sign in with Acme Login' });
    await button.waitFor();
    await app.expectAccessible(reviewer.page, 'sign-in with providers');
    await app.shoot(reviewer.page, 'review-01-sign-in-providers');
    await button.focus();
    await reviewer.page.keyboard.press('Enter');
    // Back where they were going, signed in as the provider's account.
    await reviewer.page.getByRole('heading', { name: /Untitled change request|Edit/ }).first().waitFor();
    expect(new URL(reviewer.page.url()).pathname).toBe(new URL(changeRequestUrl).pathname);
    await reviewer.page.getByText('Olivia Reviewer').first().waitFor();
  }, 90_000);

  it('shows the diff page by page, rendered and as Markdown', async () => {
    const page = writerPage;
    await page.goto(`${changeRequestUrl}?view=changes`);
    const changes = page.getByRole('region', { name: 'Changes' }).or(page.locator('section.changes'));
    const edited = page.getByRole('article', { name: /Changed Getting started/ });
    await edited.waitFor();
    await page.getByRole('article', { name: /Added Install/ }).getByText('Run the installer.').waitFor();
    await page.getByRole('article', { name: /Removed Old notes/ }).locator('del').getByText('Notes nobody reads any more.').waitFor();
    expect(await text(edited.locator('ins'))).toContain('rewritten');
    expect(await text(edited.locator('del'))).toContain('The first page of the handbook.');
    // An unchanged block is shown as is, marked neither way.
    expect(await edited.locator('.diff-block:not(ins):not(del)').filter({ hasText: 'Keep this paragraph.' }).count()).toBe(1);
    // A changed tabs block is on the screen twice, old and new: the old one's ids are its own, so that every
    // tab controls its own panel and no id is repeated.
    expect(await text(edited.locator('del [role=tabpanel]'))).toContain('Run setup.sh.');
    expect(await text(edited.locator('ins [role=tabpanel]'))).toContain('Run setup.sh --now.');
    for (const side of ['del', 'ins']) {
      const controlled = await edited.locator(`${side} [role=tab]`).getAttribute('aria-controls');
      expect(await edited.locator(`${side} [role=tabpanel]`).getAttribute('id')).toBe(controlled);
    }
    expect(await page.evaluate(() => { const ids = Array.from(document.querySelectorAll('[id]')).map((node) => node.id); return ids.length - new Set(ids).size; })).toBe(0);
    expect(await changes.count()).toBeGreaterThan(0);
    const moved = page.getByRole('article', { name: /Moved FAQ/ });
    await moved.getByText('Moved from the top level into “Getting started”.').waitFor();
    expect(await moved.locator('ins, del, .rendered-diff').count()).toBe(0);
    await app.expectAccessible(page, 'changes, rendered');
    await app.shoot(page, 'review-02-diff-rendered');

    await page.getByRole('radio', { name: 'Markdown' }).check();
    const markdown = page.getByLabel('Markdown changes of Getting started');
    await markdown.waitFor();
    expect(await text(markdown.locator('.diff-added'))).toMatch(/The first page of the handbook, rewritten\./);
    expect(await text(markdown.locator('.diff-removed'))).toMatch(/The first page of the handbook\.$/);
    await app.expectAccessible(page, 'changes, Markdown');
    await app.shoot(page, 'review-03-diff-markdown');
  }, 90_000);

  it('asks a member for a review with the picker, and can take the request back', async () => {
    const page = writerPage;
    await page.goto(changeRequestUrl);
    await page.getByRole('checkbox', { name: 'Olivia Reviewer' }).check();
    await page.getByRole('button', { name: 'Request review' }).click();
    await page.getByText('Review requested.').waitFor();
    const asked = page.getByRole('list').filter({ hasText: 'Olivia Reviewer' });
    await asked.waitFor();
    const requested = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { params: { path: { spaceId, changeRequestId } } }));
    expect(requested.items.map((item) => item.user.displayName)).toEqual(['Olivia Reviewer']);
    await page.getByRole('button', { name: 'Remove Olivia Reviewer' }).click();
    await page.getByRole('checkbox', { name: 'Olivia Reviewer' }).check();
    await page.getByRole('button', { name: 'Request review' }).click();
    await page.getByRole('button', { name: 'Remove Olivia Reviewer' }).waitFor();
  }, 60_000);

  it('updates from main, and names the conflicting pages when it cannot', async () => {
    const page = writerPage;
    await page.goto(changeRequestUrl);
    await page.getByRole('button', { name: 'Update from main' }).click();
    await page.getByText('Updated from main').waitFor();
    const after = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: { spaceId, changeRequestId } } }));
    expect(after.outdated).toBe(false);

    const started = (await unwrap(org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId } } }))).pages.find((item) => item.title === 'Getting started')!;
    await fixtures.editMain(org, spaceId, [{ operation: 'update_page', page: started.id, document: md('# Welcome\n\nThe first page of the handbook, changed on main.\n\nKeep this paragraph.\n') }]);
    await page.reload();
    await page.getByRole('button', { name: 'Update from main' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Nothing was pulled in' });
    await alert.getByText(/Getting started: the same part of its content was edited on both sides/).waitFor();
    await app.expectAccessible(page, 'update conflicts');
    await app.shoot(page, 'review-04-update-conflicts');
  }, 60_000);

  it('discusses in comments: post, reply, edit, resolve, reopen, delete; Markdown rendered, never run', async () => {
    const page = writerPage;
    await page.goto(changeRequestUrl);
    await page.getByLabel('New comment (Markdown)').fill(`Is this **clear** enough? ${HOSTILE}`);
    await page.getByRole('button', { name: 'Post comment' }).click();
    const thread = page.getByRole('article').filter({ hasText: 'enough?' });
    await thread.locator('strong', { hasText: 'clear' }).waitFor();

    await reviewer.page.goto(changeRequestUrl);
    const seen = reviewer.page.getByRole('article').filter({ hasText: 'enough?' });
    await seen.locator('strong', { hasText: 'clear' }).waitFor();
    await expectNothingRan(reviewer.page);
    await seen.getByRole('button', { name: 'Reply' }).click();
    await reviewer.page.getByLabel('Your reply').fill('Yes, _ship it_.');
    await reviewer.page.getByRole('button', { name: 'Post reply' }).click();
    await seen.locator('em', { hasText: 'ship it' }).waitFor();
    // Only the author may change a comment.
    expect(await seen.getByRole('button', { name: 'Edit comment' }).count()).toBe(1);
    await app.expectAccessible(reviewer.page, 'comments');
    await app.shoot(reviewer.page, 'review-05-comments');

    await page.reload();
    await thread.getByText('ship it').waitFor();
    await thread.getByRole('button', { name: 'Edit comment' }).first().click();
    await page.getByLabel('Edit your comment').fill('Is this clear enough now?');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Is this clear enough now?').waitFor();
    await page.getByText('(edited)').waitFor();

    const now = page.getByRole('article').filter({ hasText: 'enough now?' });
    await now.getByRole('button', { name: 'Resolve' }).click();
    await page.getByText('No open comments.').waitFor();
    await page.getByRole('button', { name: 'Show resolved comments (1)' }).click();
    await now.getByRole('button', { name: 'Reopen' }).click();
    await now.getByRole('button', { name: 'Resolve' }).waitFor();
    const comments = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { params: { path: { spaceId, changeRequestId }, query: { format: 'markdown' } } }));
    expect(comments.items.map((item) => [item.status, item.replies, 'markdown' in item.body ? item.body.markdown : ''])).toEqual([['open', 1, 'Is this clear enough now?']]);

    await now.getByRole('button', { name: 'Delete' }).first().click();
    await now.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No open comments.').waitFor();
    await expectNothingRan(page);
  }, 90_000);

  it('discusses pages of the main content on the space screen: post on a page, reply, resolve, edit and delete one\'s own', async () => {
    const page = writerPage;
    const spaceUrl = `${app.server.url}/o/${org.organizationId}/s/${spaceId}`;
    await page.goto(spaceUrl);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'FAQ' }).click();
    await page.getByRole('heading', { name: 'FAQ' }).waitFor();
    await page.getByRole('checkbox', { name: 'About the page “FAQ”' }).check();
    await page.getByLabel('New comment (Markdown)').fill(`Should this answer **more** questions? ${HOSTILE}`);
    await page.getByRole('button', { name: 'Post comment' }).click();
    const thread = page.getByRole('article').filter({ hasText: 'questions?' });
    await thread.locator('strong', { hasText: 'more' }).waitFor();
    await thread.getByText('On “FAQ”').waitFor();
    // The page's fixed "Edit" is still the only button of that exact name beside the comment's own.
    expect(await page.getByRole('button', { name: 'Edit', exact: true }).count()).toBe(1);
    await thread.getByRole('button', { name: 'Edit comment' }).waitFor();
    const stored = await unwrap(org.client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId }, query: { format: 'markdown' } } }));
    const faq = (await unwrap(org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId } } }))).pages.find((item) => item.title === 'FAQ')!;
    expect(stored.items.map((item) => item.target.page?.id)).toEqual([faq.id]);

    // The reviewer, by keyboard: reply, then resolve.
    await reviewer.page.goto(spaceUrl);
    const seen = reviewer.page.getByRole('article').filter({ hasText: 'questions?' });
    await seen.locator('strong', { hasText: 'more' }).waitFor();
    await expectNothingRan(reviewer.page);
    expect(await seen.getByRole('button', { name: 'Edit comment' }).count()).toBe(0);
    await seen.getByRole('button', { name: 'Reply' }).focus();
    await reviewer.page.keyboard.press('Enter');
    // The Reply button gives way to the form, so the focus moves into it rather than being lost.
    await focused(reviewer.page.getByLabel('Your reply')).toBe(true);
    await reviewer.page.keyboard.type('Two more, _at least_.');
    await reviewer.page.keyboard.press('Tab');
    await reviewer.page.keyboard.press('Enter');
    await seen.locator('em', { hasText: 'at least' }).waitFor();
    await app.expectAccessible(reviewer.page, 'space comments');
    await app.shoot(reviewer.page, 'review-07-space-comments');
    await seen.getByRole('button', { name: 'Resolve' }).click();
    await reviewer.page.getByText('No open comments.').waitFor();

    // The writer finds it resolved, opens it again, edits and deletes it.
    await page.reload();
    await page.getByRole('button', { name: 'Show resolved comments (1)' }).click();
    await thread.getByText(/Resolved by Olivia Reviewer/).waitFor();
    await thread.getByRole('button', { name: 'Reopen' }).click();
    await thread.getByRole('button', { name: 'Resolve' }).waitFor();
    await thread.getByRole('button', { name: 'Edit comment' }).first().click();
    await page.getByLabel('Edit your comment').fill('Should this answer more questions, and which?');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('and which?').waitFor();
    const edited = await unwrap(org.client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId }, query: { format: 'markdown' } } }));
    expect(edited.items.map((item) => [item.status, item.replies, 'markdown' in item.body ? item.body.markdown : ''])).toEqual([['open', 1, 'Should this answer more questions, and which?']]);
    const now = page.getByRole('article').filter({ hasText: 'and which?' });
    await now.getByRole('button', { name: 'Delete' }).first().click();
    await now.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No open comments.').waitFor();
    expect((await unwrap(org.client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId } } }))).items).toEqual([]);
    await expectNothingRan(page);
  }, 90_000);

  it('searches everything one can see from the header, by keyboard', async () => {
    const page = writerPage;
    await page.goto(`${app.server.url}/`);
    await page.getByRole('heading', { name: 'Your organizations' }).waitFor();
    await page.keyboard.press('/');
    const box = page.getByRole('searchbox', { name: /Search/ });
    await focused(box).toBe(true);
    await page.keyboard.type('zephyrine');
    const results = page.getByRole('region', { name: 'Search results' });
    await results.getByRole('region', { name: 'Handbook' }).getByRole('link', { name: /Glossary/ }).waitFor();
    await app.expectAccessible(page, 'search');
    await app.shoot(page, 'review-06-search');
    await page.keyboard.press('ArrowDown');
    await focused(results.getByRole('link', { name: /Glossary/ })).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('article').getByText('A zephyrine term, explained better.').waitFor();
    await expect.poll(() => results.count()).toBe(0);

    await page.keyboard.press('Control+k');
    await focused(box).toBe(true);
    expect(app.errors).toEqual([]);
  }, 60_000);
});
