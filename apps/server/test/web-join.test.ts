import { unwrap } from '@quire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { createSpace, newOrg, type TestOrg } from './helpers.js';
import { canRunApp, startAppHarness, WEB_PASSWORD, type AppHarness } from './web-support.js';

/*
 * Joining through an invite link to one space, in Chromium: someone with an account elsewhere opens the link,
 * is sent to sign in and back, reads where the link invites them and at what level, joins, and lands on the
 * space, which they can read, while the organization's other spaces stay closed to them. A browser flow: one
 * dialect is enough (content-invites.test.ts covers the operations on both).
 */
describe.skipIf(!canRunApp)('joining by an invite link, in Chromium', () => {
  let app: AppHarness;
  let org: TestOrg;
  let outsider: TestOrg;
  let spaceId: string;
  let linkUrl: string;

  beforeAll(async () => {
    app = await startAppHarness();
    org = await newOrg(app.server, 'Acme');
    outsider = await newOrg(app.server, 'Elsewhere');
    const space = await createSpace(org, { title: 'Partner guide' });
    spaceId = space.id;
    await createSpace(org, { title: 'Internal notes' });
    await contentFixtures(() => app.server).editMain(org, spaceId, [{ operation: 'insert_page', title: 'Welcome partners', document: md('# Welcome\n\nRead this first, partner.\n') }]);
    await unwrap(org.client.PATCH('/orgs/{organizationId}', { params: { path: { organizationId: org.organizationId } }, body: { inviteLinks: true } }));
    const link = await unwrap(org.client.POST('/orgs/{organizationId}/link-invites', { params: { path: { organizationId: org.organizationId } }, body: { level: 'read', space: spaceId } }));
    linkUrl = (link as { url?: string }).url!;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('signs in, names the space and the level, joins, and opens that space and no other', async () => {
    expect(linkUrl).toContain('/join/');
    const person = await app.withPassword(outsider);
    const { page } = await app.watchedPage();
    await page.goto(linkUrl);
    await page.getByRole('heading', { name: 'Join Partner guide' }).waitFor();
    await page.getByText(/You are invited to the space Partner guide of Acme as/).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Join Partner guide' }).waitFor();
    await app.expectAccessible(page, 'join by link');
    await app.shoot(page, 'join-01-link');
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    await page.getByRole('article').getByText('Read this first, partner.').waitFor();
    await app.shoot(page, 'join-02-space');

    const spaces = await unwrap(outsider.client.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId: org.organizationId } } }));
    expect(spaces.items.map((space) => space.title)).toEqual(['Partner guide']);
    expect(app.errors).toEqual([]);
  }, 120_000);
});
