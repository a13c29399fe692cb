import { unwrap } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { listOperations, loadBundledContract } from '../src/http/openapi/contract.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, newMember, newOrg, useTestServer } from './helpers.js';

/*
 * Parallel writes of the same object, through the client, for the families added after the first
 * concurrency tests (spaces, change requests): sites, site spaces, share links, grants, reviews, glossary,
 * conversations (integrations: integrations.test.ts). Each answer must be a status the contract declares for
 * the operation (`default` does not count: it is where a 500 would hide), and the final state one that some
 * order of the writes, one after the other, would have left.
 */

const declared = (() => {
  const byOperation = new Map<string, Set<number>>();
  for (const operation of listOperations(loadBundledContract())) {
    byOperation.set(operation.operationId, new Set(Object.keys(operation.definition.responses ?? {}).filter((status) => /^\d{3}$/.test(status)).map(Number)));
  }
  return byOperation;
})();

/** Sends `count` requests at once and checks that each answer's status is one the contract declares. */
async function race<T extends { response: Response }>(operationId: string, count: number, send: (index: number) => Promise<T>): Promise<T[]> {
  const answers = await Promise.all(Array.from({ length: count }, (_, index) => send(index)));
  const statuses = declared.get(operationId);
  expect(statuses, `${operationId} is an operation of the contract`).toBeDefined();
  for (const answer of answers) expect([...statuses!], `${operationId} answered ${answer.response.status}`).toContain(answer.response.status);
  return answers;
}

const statusesOf = (answers: Array<{ response: Response }>) => answers.map((answer) => answer.response.status).sort();

describeEachDialect('concurrent writes', (dialect) => {
  const server = useTestServer({ dialect });

  async function siteWorld() {
    const org = await newOrg(server, 'Concurrent sites org');
    const organizationId = org.organizationId;
    const space = await createSpace(org, { title: 'Published' });
    const site = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: 'Docs' } as never }));
    return { org, organizationId, space, site, sitePath: { params: { path: { organizationId, siteId: site.id } } } };
  }

  describe('updateSiteById concurrency', () => {
    it('applies 10 parallel renames (all 200, the last one kept) and gives a basename claimed by two sites at once to one of them (the other 409)', async () => {
      const { org, organizationId, site, sitePath } = await siteWorld();
      const answers = await race('updateSiteById', 10, (index) => org.client.PATCH('/orgs/{organizationId}/sites/{siteId}', { ...sitePath, body: { title: `Docs ${index}` } }));
      expect(statusesOf(answers)).toEqual(Array(10).fill(200));
      const titles = answers.map((answer) => answer.data!.title);
      expect(titles).toContain((await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}', sitePath))).title);

      const other = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: 'Other' } as never }));
      const basename = `contested-${Date.now()}`;
      const claims = await race('updateSiteById', 2, (index) => org.client.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: { path: { organizationId, siteId: [site.id, other.id][index]! } }, body: { basename } }));
      expect(statusesOf(claims)).toEqual([200, 409]);
      const holders = (await unwrap(org.client.GET('/orgs/{organizationId}/sites', { params: { path: { organizationId } } }))).items.filter((item) => item.basename === basename);
      expect(holders).toHaveLength(1);
    });
  });

  describe('addSpaceToSite concurrency', () => {
    it('publishes a space added 5 times at once exactly once (one 201, the others 409)', async () => {
      const { org, space, sitePath } = await siteWorld();
      const answers = await race('addSpaceToSite', 5, () => org.client.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { ...sitePath, body: { spaceId: space.id } as never }));
      expect(statusesOf(answers)).toEqual([201, 409, 409, 409, 409]);
      const listed = await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', sitePath));
      expect(listed.items.filter((item) => item.space.id === space.id)).toHaveLength(1);
    });
  });

  describe('deleteSiteSpaceById concurrency', () => {
    it('answers 204 to 5 parallel removals of one site space, which is gone', async () => {
      const { org, organizationId, space, site, sitePath } = await siteWorld();
      const siteSpace = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { ...sitePath, body: { spaceId: space.id } as never }));
      const answers = await race('deleteSiteSpaceById', 5, () => org.client.DELETE('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: { path: { organizationId, siteId: site.id, siteSpaceId: siteSpace.id } } }));
      expect(statusesOf(answers)).toEqual(Array(5).fill(204));
      expect((await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', sitePath))).items).toEqual([]);
    });
  });

  describe('createSiteShareLink concurrency', () => {
    it('makes 10 parallel share links, each with its own id and key', async () => {
      const { org, sitePath } = await siteWorld();
      // Published, so that each link's address carries its key.
      await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', sitePath));
      const answers = await race('createSiteShareLink', 10, (index) => org.client.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { ...sitePath, body: { name: `Link ${index}` } }));
      expect(statusesOf(answers)).toEqual(Array(10).fill(201));
      const listed = await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}/share-links', sitePath));
      expect(new Set(listed.items.map((item) => item.id)).size).toBe(10);
      expect(new Set(answers.map((answer) => new URL(answer.data!.urls.published!).searchParams.get('shareKey'))).size).toBe(10);
    });
  });

  describe('deleteSiteShareLinkById concurrency', () => {
    it('answers 204 to 5 parallel deletions of one link, with an update racing them answering 200 or 404, and the link is gone', async () => {
      const { org, organizationId, site, sitePath } = await siteWorld();
      const link = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { ...sitePath, body: { name: 'Doomed' } }));
      const linkPath = { params: { path: { organizationId, siteId: site.id, shareLinkId: link.id } } };
      const [deletes, updates] = await Promise.all([
        race('deleteSiteShareLinkById', 5, () => org.client.DELETE('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', linkPath)),
        race('updateSiteShareLinkById', 3, (index) => org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { ...linkPath, body: { name: `Renamed ${index}` } })),
      ]);
      expect(statusesOf(deletes)).toEqual(Array(5).fill(204));
      for (const status of statusesOf(updates)) expect([200, 404]).toContain(status);
      expect((await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}/share-links', sitePath))).items).toEqual([]);
    });
  });

  describe('inviteToSpace concurrency', () => {
    it('keeps one grant of a user granted 6 roles at once (all 204), with one of those roles, and removes it once for 5 parallel removals (one 205, the others 204)', async () => {
      const org = await newOrg(server, 'Concurrent grants org');
      const space = await createSpace(org);
      const member = await newMember(server, org, null);
      const spacePath = { params: { path: { spaceId: space.id } } };
      const roles = ['read', 'comment', 'edit', 'review', 'create', 'admin'] as const;
      const answers = await race('inviteToSpace', roles.length, (index) => org.client.POST('/spaces/{spaceId}/permissions', { ...spacePath, body: { role: roles[index]!, users: [member.userId] } }));
      expect(statusesOf(answers)).toEqual(Array(roles.length).fill(204));
      const granted = (await unwrap(org.client.GET('/spaces/{spaceId}/permissions/users', spacePath))).items.filter((item) => item.user.id === member.userId);
      expect(granted).toHaveLength(1);
      expect(roles).toContain(granted[0]!.permission);

      const removals = await race('removeUserFromSpace', 5, () => org.client.DELETE('/spaces/{spaceId}/permissions/users/{userId}', { params: { path: { spaceId: space.id, userId: member.userId } } }));
      expect([...statusesOf(removals)].sort()).toEqual([204, 204, 204, 204, 205]);
      expect((await unwrap(org.client.GET('/spaces/{spaceId}/permissions/users', spacePath))).items.filter((item) => item.user.id === member.userId)).toEqual([]);
    });
  });

  describe('submitChangeRequestReview concurrency', () => {
    it('records 5 parallel reviews by one reviewer (201 each), none twice', async () => {
      const org = await newOrg(server, 'Concurrent reviews org');
      const space = await createSpace(org);
      const reviewer = await newMember(server, org, 'review');
      const cr = await unwrap(org.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: { subject: 'Review me' } }));
      const crPath = { params: { path: { spaceId: space.id, changeRequestId: cr.id } } };
      const statuses = ['approved', 'changes-requested', 'approved', 'changes-requested', 'approved'] as const;
      const answers = await race('submitChangeRequestReview', statuses.length, (index) => reviewer.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { ...crPath, body: { status: statuses[index]! } }));
      expect(statusesOf(answers)).toEqual(Array(statuses.length).fill(201));
      const reviews = (await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', crPath))).items;
      expect(new Set(reviews.map((review) => review.id)).size).toBe(reviews.length);
      expect(reviews.length).toBeGreaterThanOrEqual(1);
    });
  });

  describe('updateGlossaryEntries concurrency', () => {
    it('keeps every entry of 8 parallel inserts (204 each), each once', async () => {
      const org = await newOrg(server, 'Concurrent glossary org');
      const path = { params: { path: { organizationId: org.organizationId } } };
      const answers = await race('updateGlossaryEntries', 8, (index) => org.client.PUT('/orgs/{organizationId}/translations-glossary', { ...path, body: { operations: [{ type: 'insert', translations: { en: `term ${index}`, fr: `terme ${index}` } }] } as never }));
      expect(statusesOf(answers)).toEqual(Array(8).fill(204));
      const entries = (await unwrap(org.client.GET('/orgs/{organizationId}/translations-glossary', path))).items;
      expect(entries.map((entry) => (entry.translations as Record<string, string>).en).sort()).toEqual(Array.from({ length: 8 }, (_, index) => `term ${index}`).sort());
    });
  });

  describe('ingestConversation concurrency', () => {
    it('keeps one conversation for one id ingested 6 times at once (204 each), holding one of the bodies sent', async () => {
      const org = await newOrg(server, 'Concurrent conversations org');
      const path = { params: { path: { organizationId: org.organizationId } } };
      const answers = await race('ingestConversation', 6, (index) => org.client.POST('/orgs/{organizationId}/conversations', { ...path, body: [{ id: 'same-thread', parts: [{ type: 'message', role: 'user', body: `Version ${index} of the question` }] }] as never }));
      expect(statusesOf(answers)).toEqual(Array(6).fill(204));
      const conversations = (await unwrap(org.client.GET('/orgs/{organizationId}/conversations', path))).items;
      expect(conversations).toHaveLength(1);
      const conversation = await unwrap(org.client.GET('/orgs/{organizationId}/conversations/{conversationId}', { params: { path: { organizationId: org.organizationId, conversationId: conversations[0]!.id } } }));
      expect(JSON.stringify(conversation)).toMatch(/Version [0-5] of the question/);
    });
  });
});
