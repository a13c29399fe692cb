import { unwrap } from '@quire/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { createSpace, newOrg, type TestOrg } from './helpers.js';
import { makePng } from './support/pdf-fixtures.js';
import { canRunApp, contractHasSignIn, startAppHarness, type AppHarness, type Person } from './web-support.js';

/*
 * Writing in a change request, in Debian's Chromium (SQLite only: nothing here depends on the dialect): the
 * page tree rearranged by keyboard (Alt+Arrow keys, announced) and by drag and drop; a page added, renamed,
 * hidden and deleted (confirmed in the page); blocks inserted from the slash menu and the toolbar, a link
 * completed to another page, files uploaded by paste, by drop and by the button, a file over the limit refused with
 * the limit said; an edit made elsewhere in the request saved over without a conflict, also when it lands between
 * the editor's look and its write (the server's 412, then a save on the new revision). Every change is read
 * back through the API. Screenshots go to apps/web/test-artifacts/write-*.png.
 */

describe.skipIf(!canRunApp || !contractHasSignIn)('writing in a change request, in Chromium', () => {
  let app: AppHarness;
  let org: TestOrg;
  let writer: Person;
  let spaceId: string;
  let changeRequestId: string;
  let changeRequestUrl: string;
  const ids: Record<string, string> = {};
  const fixtures = contentFixtures(() => app.server);

  beforeAll(async () => {
    app = await startAppHarness();
    org = await newOrg(app.server, 'Writers');
    writer = await app.withPassword(org);
    const space = await createSpace(org, { title: 'Manual' });
    spaceId = space.id;
    const made = await fixtures.editMain(org, spaceId, [
      { operation: 'insert_page', title: 'Guide', ref: 'guide', document: md('# Guide\n\nHow to use it.\n') },
      { operation: 'insert_page', title: 'Install', ref: 'install', document: md('Install steps.\n') },
      { operation: 'insert_page', title: 'Reference', ref: 'reference', document: md('All the options.\n') },
    ]);
    for (const ref of ['guide', 'install', 'reference']) ids[ref] = fixtures.pageOf(made, ref);
    const cr = await fixtures.createCr(org.client, spaceId);
    changeRequestId = cr.id;
    changeRequestUrl = new URL(cr.urls.app).pathname;
  });

  afterAll(async () => {
    await app?.close();
  });

  const tree = (page: Page) => page.getByRole('navigation', { name: 'Pages of the change request' });
  const treeLink = (page: Page, name: string | RegExp) => tree(page).getByRole('link', { name });
  async function storedTree(): Promise<unknown> {
    const revision = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: { spaceId, changeRequestId } } }));
    const shape = (pages: typeof revision.pages): unknown[] => pages.map((entry) => (entry.pages?.length ? { [entry.title]: shape(entry.pages) } : entry.title));
    return shape(revision.pages);
  }
  const storedPage = (pageId: string) =>
    unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { spaceId, changeRequestId, pageId }, query: { format: 'markdown' } } }));

  it('rearranges, adds, renames, hides and deletes pages, by keyboard and by mouse', async () => {
    const { page } = await app.signedIn(writer);
    await page.goto(`${app.server.url}${changeRequestUrl}`);
    await page.getByRole('heading', { name: 'Guide', level: 2 }).waitFor();
    await page.getByRole('textbox', { name: 'Page content' }).waitFor();
    await app.expectAccessible(page, 'change request, writing');
    await app.shoot(page, 'write-01-change-request');

    // Keyboard: Alt+Up, then Alt+Right into the page above; each move is said and focus stays on the page.
    await treeLink(page, 'Reference').focus();
    await page.keyboard.press('Alt+ArrowUp');
    await tree(page).getByText('“Reference” is now 2 of 3 at the top level.').waitFor();
    expect(await storedTree()).toEqual(['Guide', 'Reference', 'Install']);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Reference');
    await page.keyboard.press('Alt+ArrowRight');
    await tree(page).getByText('“Reference” is now 1 of 1 in “Guide”.').waitFor();
    expect(await storedTree()).toEqual([{ Guide: ['Reference'] }, 'Install']);
    await page.keyboard.press('Alt+ArrowRight');
    await tree(page).getByText('“Reference” cannot move that way.').waitFor();

    // Mouse: Install dropped on the upper edge of Guide goes before it.
    await treeLink(page, 'Install').dragTo(treeLink(page, 'Guide'), { targetPosition: { x: 10, y: 1 } });
    await tree(page).getByText('“Install” is now 1 of 2 at the top level.').waitFor();
    expect(await storedTree()).toEqual(['Install', { Guide: ['Reference'] }]);

    // Add a subpage of the open page (Guide); it opens.
    await treeLink(page, 'Guide').click();
    await page.getByRole('button', { name: 'Add subpage' }).click();
    await page.getByLabel('Title of the new page inside “Guide”').fill('Tutorial');
    await page.getByRole('button', { name: 'Create page' }).click();
    await page.getByRole('heading', { name: 'Tutorial', level: 2 }).waitFor();
    expect(await storedTree()).toEqual(['Install', { Guide: ['Reference', 'Tutorial'] }]);

    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('New title').fill('Hands-on tutorial');
    await page.getByRole('button', { name: 'Save title' }).click();
    await page.getByRole('heading', { name: 'Hands-on tutorial', level: 2 }).waitFor();

    await page.getByRole('button', { name: 'Hide page' }).click();
    await treeLink(page, /Hands-on tutorial \(hidden\)/).waitFor();
    await page.getByRole('button', { name: 'Show page' }).waitFor();
    const hidden = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: { spaceId, changeRequestId } } }));
    expect(hidden.pages[1]!.pages![1]).toMatchObject({ title: 'Hands-on tutorial', hidden: true });

    // Delete, confirmed in the page (a browser dialog would be counted as an error by the harness).
    await page.getByRole('button', { name: 'Delete page' }).click();
    await page.getByText('Delete “Hands-on tutorial” from this change request?').waitFor();
    await app.expectAccessible(page, 'delete confirmation');
    await app.shoot(page, 'write-02-delete-confirmation');
    await page.getByRole('button', { name: 'Delete “Hands-on tutorial”' }).click();
    await page.getByRole('heading', { name: 'Install', level: 2 }).waitFor();
    expect(await storedTree()).toEqual(['Install', { Guide: ['Reference'] }]);
    expect(app.errors).toEqual([]);
  }, 180_000);

  it('inserts blocks from the slash menu and the toolbar, completes page links, uploads images and says the limit', async () => {
    const { page } = await app.signedIn(writer);
    await page.goto(`${app.server.url}${changeRequestUrl}/guide`);
    const editor = page.getByRole('textbox', { name: 'Page content' });
    await editor.waitFor();
    await editor.click();
    await page.keyboard.press('Control+End');

    // "/" opens the menu of blocks; typing filters it, Enter inserts.
    await page.keyboard.type('\n/');
    await page.getByRole('listbox').getByRole('option', { name: 'Info hint' }).waitFor();
    await app.shoot(page, 'write-03-slash-menu');
    await page.keyboard.type('warn');
    // The menu is filtered once the other entries are gone: Enter then takes the one left.
    await page.getByRole('option', { name: 'Info hint' }).waitFor({ state: 'detached' });
    await page.getByRole('option', { name: 'Warning hint' }).waitFor();
    await page.keyboard.press('Enter');
    await page.keyboard.type('Mind the gap.');
    await page.getByRole('article', { name: 'Preview of Guide' }).getByRole('note').getByText('Mind the gap.').waitFor();

    // Tabs from the slash menu: two tabs, the first one's content selected to be typed over; the preview
    // shows them as the reader does, switched by click and by the arrow keys.
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n/tabs');
    await page.getByRole('option', { name: 'Table' }).waitFor({ state: 'detached' });
    await page.getByRole('option', { name: 'Tabs' }).waitFor();
    await page.keyboard.press('Enter');
    await page.keyboard.type('npm install quire');
    const preview = page.getByRole('article', { name: 'Preview of Guide' });
    await preview.getByRole('tabpanel').getByText('npm install quire').waitFor();
    expect(await preview.getByRole('tab').allTextContents()).toEqual(['First tab', 'Second tab']);
    expect(await preview.getByRole('tab', { name: 'First tab' }).getAttribute('aria-selected')).toBe('true');
    await preview.getByRole('tab', { name: 'Second tab' }).click();
    await preview.getByRole('tabpanel').getByText('Content of the second tab').waitFor();
    expect(await preview.getByRole('tabpanel').count()).toBe(1);
    await page.keyboard.press('ArrowLeft');
    await preview.getByRole('tabpanel').getByText('npm install quire').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('First tab');
    await app.shoot(page, 'write-03b-tabs');
    await editor.click();

    // The toolbar: a table, then a link whose address completes to a page of the space.
    await page.keyboard.press('Control+End');
    await page.getByRole('button', { name: 'Table' }).click();
    await page.getByRole('article', { name: 'Preview of Guide' }).getByRole('table').waitFor();
    await page.keyboard.press('Control+End');
    await page.getByRole('button', { name: 'Link to a page' }).click();
    await page.getByRole('option', { name: /Install/ }).waitFor();
    await page.keyboard.type('inst');
    await page.getByRole('option', { name: /Reference/ }).waitFor({ state: 'detached' });
    await page.keyboard.press('Enter');
    await page.getByRole('article', { name: 'Preview of Guide' }).getByRole('link', { name: 'Link text' }).waitFor();

    // An image pasted, one chosen with the button, and one over the limit.
    const png = makePng(40, 30, (x, y) => [x * 6, y * 8, 120]);
    await page.evaluate(async (bytes) => {
      const content = Array.from(document.querySelectorAll('.markdown-editor')).map((host) => host.shadowRoot?.querySelector('.cm-content')).find(Boolean)!;
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], 'pasted.png', { type: 'image/png' }));
      content.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, [...png]);
    await page.getByText('“pasted.png” uploaded.').waitFor();
    await page.getByRole('article', { name: 'Preview of Guide' }).getByRole('img', { name: 'pasted.png' }).waitFor();
    await page.evaluate(() => {
      const content = Array.from(document.querySelectorAll('.markdown-editor')).map((host) => host.shadowRoot?.querySelector('.cm-content')).find(Boolean)!;
      const data = new DataTransfer();
      data.items.add(new File(['Release notes.\n'], 'notes.txt', { type: 'text/plain' }));
      const box = content.getBoundingClientRect();
      content.dispatchEvent(new DragEvent('drop', { dataTransfer: data, clientX: box.left + 20, clientY: box.top + 10, bubbles: true, cancelable: true }));
    });
    await page.getByText('“notes.txt” uploaded.').waitFor();
    await page.getByRole('article', { name: 'Preview of Guide' }).getByRole('link', { name: 'notes.txt' }).waitFor();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload image or file' }).click();
    await (await chooser).setFiles([{ name: 'too-big.png', mimeType: 'image/png', buffer: Buffer.alloc(1024 * 1024 + 1, 1) }]);
    await page.getByRole('alert').getByText('“too-big.png” is 1.0 MB; files can be at most 1 MB.', { exact: false }).waitFor();

    // Another writer renames another page meanwhile: an edit elsewhere, saved over without a conflict.
    await fixtures.editCr(org.client, spaceId, changeRequestId, [{ operation: 'update_page', page: ids.install!, title: 'Installation' }]);
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nThe end.');
    await page.getByText('All changes saved').waitFor();
    await app.expectAccessible(page, 'editor with blocks');
    await app.shoot(page, 'write-04-blocks-and-uploads');

    const stored = (await storedPage(ids.guide!)).markdown ?? '';
    expect(stored).toContain('{% hint style="warning" %}\nMind the gap.');
    expect(stored).toContain('{% tabs %}\n{% tab title="First tab" %}\nnpm install quire\n{% endtab %}\n\n{% tab title="Second tab" %}\nContent of the second tab\n{% endtab %}\n{% endtabs %}');
    expect(stored).toMatch(/\| Column \| Column \|/);
    expect(stored).toContain(`[Link text](/pages/${ids.install})`);
    expect(stored).toMatch(/!\[pasted\.png\]\(\/files\/[^)]+\)/);
    expect(stored).toMatch(/\[notes\.txt\]\(\/files\/[^)]+\)/);
    expect(stored).toContain('The end.');
    expect((await storedPage(ids.install!)).title).toBe('Installation');
    expect(app.errors).toEqual([]);
  }, 180_000);

  it('saves again on the new revision when an edit elsewhere lands between its look and its write (412)', async () => {
    const { page } = await app.signedIn(writer);
    await page.goto(`${app.server.url}${changeRequestUrl}`);
    await treeLink(page, 'Reference').click();
    await page.getByRole('heading', { name: 'Reference', level: 2 }).waitFor();
    const editor = page.getByRole('textbox', { name: 'Page content' });
    await editor.waitFor();
    // The first save is held until another writer has renamed another page: the save then carries a revision
    // that is no longer the request's, and the server refuses it with 412 under its row lock.
    // (The app names the request by its number in addresses, the API takes it by id or number alike.)
    const saveAddress = new RegExp(`/v1/spaces/${spaceId}/change-requests/[^/]+/content$`);
    let held = false;
    const saves: number[] = [];
    page.on('response', (response) => {
      if (response.request().method() === 'POST' && saveAddress.test(response.url())) saves.push(response.status());
    });
    await page.route(saveAddress, async (route) => {
      if (route.request().method() === 'POST' && !held) {
        held = true;
        await fixtures.editCr(org.client, spaceId, changeRequestId, [{ operation: 'update_page', page: ids.guide!, title: 'User guide' }]);
      }
      await route.continue();
    });
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nSee also the changelog.');
    await page.getByText('All changes saved').waitFor();
    expect(saves).toEqual([412, 200]);
    expect((await storedPage(ids.reference!)).markdown).toContain('See also the changelog.');
    expect((await storedPage(ids.guide!)).title).toBe('User guide');
    // Chromium logs the refused save as a failed load; that refusal is this test's subject, nothing else may fail.
    const others = app.errors.filter((error) => !(error.includes('status of 412') && /\/change-requests\/[^/]+\/content\)$/.test(error)));
    expect(others).toEqual([]);
    app.errors.length = 0;
  }, 180_000);
});
