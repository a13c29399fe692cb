import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { allJobHandlers } from '../src/jobs/index.js';
import { JobRunner } from '../src/jobs/runner.js';
import { pulseWeeks } from '../src/services/conversation-weeks.js';
import { generateCorpus } from '../bench/conversation-corpus.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, organizationWithPeople, useTestServer } from './helpers.js';

describeEachDialect('conversations', (dialect) => {
  const server = useTestServer({ dialect });

  const org = (roles: Record<string, 'admin' | 'edit' | 'read' | null> = {}) => organizationWithPeople(server, 'Support org', roles);
  const path = (organizationId: string) => ({ path: { organizationId } });
  const ingest = (client: QuireClient, organizationId: string, body: unknown, source?: string) =>
    client.POST('/orgs/{organizationId}/conversations', { params: { ...path(organizationId), ...(source ? { query: { source } } : {}) }, body: body as never });
  const conversations = (client: QuireClient, organizationId: string, query: Record<string, unknown> = {}) =>
    unwrap(client.GET('/orgs/{organizationId}/conversations', { params: { ...path(organizationId), query: { limit: 1000, ...query } } }));
  const issues = (client: QuireClient, organizationId: string, query: Record<string, unknown> = {}) =>
    unwrap(client.GET('/orgs/{organizationId}/conversations-issues', { params: { ...path(organizationId), query: { limit: 1000, ...query } } }));
  const clusters = (client: QuireClient, organizationId: string, query: Record<string, unknown> = {}) =>
    unwrap(client.GET('/orgs/{organizationId}/conversations-clusters', { params: { ...path(organizationId), query: { limit: 1000, ...query } as never } }));
  const runJobs = async () => {
    const runner = new JobRunner({ services: server.running.services, handlers: allJobHandlers() });
    while (await runner.runOnce()) { /* drain */ }
  };
  const message = (body: string, role = 'user') => ({ type: 'message', role, body });

  describe('ingestConversation', () => {
    it('ingests one conversation or a batch (204), idempotently per source and id, and analyses them in a job', async () => {
      const { organizationId, admin } = await org();
      const sso = { id: 'zd-1', subject: 'SSO login broken', parts: [message('Our SAML SSO login fails with error 500 since this morning.'), message('Could you send a screenshot?', 'team-member')], metadata: { url: 'https://support.example.com/tickets/1', attributes: { plan: 'pro' } } };
      const first = await ingest(admin.client, organizationId, sso);
      expect(first.response.status).toBe(204);
      await unwrap(ingest(admin.client, organizationId, [sso, { id: 'zd-2', parts: [message('<p>The <b>PDF export</b> of our space never finishes downloading.</p>')] }]));
      let list = await conversations(admin.client, organizationId);
      expect(list.count).toBe(2);
      expect(list.items.every((item) => item.processedAt === undefined && item.source === 'integration:api:default')).toBe(true);

      await runJobs();
      list = await conversations(admin.client, organizationId);
      expect(list.items.every((item) => typeof item.processedAt === 'string')).toBe(true);
      const ssoConversation = list.items.find((item) => item.subject === 'SSO login broken')!;
      expect(ssoConversation.urls.source).toBe('https://support.example.com/tickets/1');
      const details = await unwrap(admin.client.GET('/orgs/{organizationId}/conversations/{conversationId}', { params: { path: { organizationId, conversationId: ssoConversation.id } } }));
      expect(details.parts).toEqual(sso.parts);
      expect(details.metadata).toEqual(sso.metadata);

      const found = await issues(admin.client, organizationId, { conversation: ssoConversation.id });
      expect(found.count).toBe(1);
      expect(found.items[0]!.issue).toMatchObject({ object: 'conversation-issue', title: 'SSO login broken', conversation: ssoConversation.id });
      expect(found.items[0]!.issue.summary).toContain('SAML SSO login fails with error 500');
      expect(found.items[0]!.conversation.id).toBe(ssoConversation.id);

      // The same conversation again changes nothing; new content replaces it and is analysed again.
      await unwrap(ingest(admin.client, organizationId, sso));
      expect((await conversations(admin.client, organizationId)).items.find((item) => item.id === ssoConversation.id)!.processedAt).toBeDefined();
      await unwrap(ingest(admin.client, organizationId, { ...sso, parts: [message('Our password reset email never arrives, even in the spam folder.')] }));
      expect((await conversations(admin.client, organizationId)).count).toBe(2);
      await runJobs();
      const replaced = await issues(admin.client, organizationId, { conversation: ssoConversation.id });
      expect(replaced.count).toBe(1);
      expect(replaced.items[0]!.issue.summary).toContain('password reset email');

      // Another source keeps its own ids.
      await unwrap(ingest(admin.client, organizationId, sso, 'email'));
      expect((await conversations(admin.client, organizationId)).count).toBe(3);
      expect((await conversations(admin.client, organizationId, { source: 'email' })).count).toBe(1);
    });


    it('refuses bad input with 400 and changes nothing', async () => {
      const { organizationId, admin } = await org();
      const good = { id: 'x', parts: [message('Search does not find our pages')] };
      for (const body of [{}, [], { id: '', parts: [message('hi')] }, { id: 'y'.repeat(256), parts: [message('hi')] }, { id: 'z', parts: [] }, { id: 'z', parts: [message('')] },
        { id: 'z', parts: [message('hi', 'bot')] }, { id: 'z', parts: [message('hi')], subject: 's'.repeat(513) }, { id: 'z', parts: [message('hi')], metadata: { url: 'not a url' } },
        [good, good], Array.from({ length: 1001 }, (_, index) => ({ ...good, id: `n${index}` }))]) {
        expect((await ingest(admin.client, organizationId, body)).response.status).toBe(400);
      }
      expectError(await ingest(admin.client, organizationId, good, 'slack'), 400);
      expect((await conversations(admin.client, organizationId)).count).toBe(0);
    });

  });

  describe('listConversations', () => {
    it('lists every conversation, filters by source, pages with limit, and shows processedAt once analysed', async () => {
      const { organizationId, admin, people } = await org({ reader: 'read' });
      await unwrap(ingest(admin.client, organizationId, [{ id: 'a', parts: [message('Search does not find our API pages')] }, { id: 'b', parts: [message('Dark mode logo is invisible')] }]));
      await unwrap(ingest(admin.client, organizationId, { id: 'a', parts: [message('Images fail to upload')] }, 'email'));
      expect((await conversations(people.reader!.client, organizationId)).count).toBe(3);
      expect((await conversations(admin.client, organizationId, { source: 'email' })).items.map((item) => item.source)).toEqual(['email']);
      const first = await conversations(admin.client, organizationId, { limit: 2 });
      expect(first.items).toHaveLength(2);
      const rest = await conversations(admin.client, organizationId, { limit: 2, page: first.next!.page });
      expect(new Set([...first.items, ...rest.items].map((item) => item.id)).size).toBe(3);
      expect(first.items.every((item) => item.processedAt === undefined)).toBe(true);
      await runJobs();
      expect((await conversations(admin.client, organizationId)).items.every((item) => typeof item.processedAt === 'string')).toBe(true);
    });
  });

  describe('getConversationById', () => {
    it('answers the conversation with its parts and metadata; 404 for unknown ids and from another organization', async () => {
      const { organizationId, admin } = await org();
      const other = await org();
      const input = { id: 'g-1', subject: 'Exports', parts: [message('The PDF export never finishes'), message('We are on it', 'team-member')], metadata: { url: 'https://support.example.com/t/9', attributes: { plan: 'team' } } };
      await unwrap(ingest(admin.client, organizationId, input));
      const listed = (await conversations(admin.client, organizationId)).items[0]!;
      const got = await unwrap(admin.client.GET('/orgs/{organizationId}/conversations/{conversationId}', { params: { path: { organizationId, conversationId: listed.id } } }));
      expect(got.conversation).toEqual(listed);
      expect(got.parts).toEqual(input.parts);
      expect(got.metadata).toEqual(input.metadata);
      expectError(await admin.client.GET('/orgs/{organizationId}/conversations/{conversationId}', { params: { path: { organizationId, conversationId: 'missing' } } }), 404);
      expectError(await other.admin.client.GET('/orgs/{organizationId}/conversations/{conversationId}', { params: { path: { organizationId: other.organizationId, conversationId: listed.id } } }), 404);
    });
  });

  describe('listConversationsIssues', () => {
    it('lists the issues found, each with its conversation, filtered by conversation and by cluster', async () => {
      const { organizationId, admin } = await org();
      await unwrap(ingest(admin.client, organizationId, [
        { id: 'a', parts: [message('SAML SSO login fails with error 500 after the redirect.'), message('Also the PDF export never finishes downloading.')] },
        { id: 'b', parts: [message('SSO login with SAML broken: error 500 on the redirect back.')] },
      ]));
      await runJobs();
      const all = await issues(admin.client, organizationId);
      expect(all.count).toBe(3);
      const [first] = (await conversations(admin.client, organizationId)).items.filter((item) => all.items.filter((found) => found.conversation.id === item.id).length === 2);
      const ofFirst = await issues(admin.client, organizationId, { conversation: first!.id });
      expect(ofFirst.items.map((item) => item.issue.conversation)).toEqual([first!.id, first!.id]);
      const cluster = all.items.find((item) => /SSO/.test(item.issue.title) || /SSO/.test(item.issue.summary))!.issue.cluster!;
      const ofCluster = await issues(admin.client, organizationId, { cluster });
      expect(ofCluster.items.length).toBeGreaterThan(0);
      expect(ofCluster.items.every((item) => item.issue.cluster === cluster)).toBe(true);
      expect((await issues(admin.client, organizationId, { conversation: 'missing' })).count).toBe(0);
    });
  });

  describe('getConversationIssueById', () => {
    it('answers one issue with its conversation; 404 for unknown ids and from another organization', async () => {
      const { organizationId, admin } = await org();
      const other = await org();
      await unwrap(ingest(admin.client, organizationId, { id: 'a', parts: [message('Our custom domain shows a certificate error')] }));
      await runJobs();
      const listed = (await issues(admin.client, organizationId)).items[0]!;
      const got = await unwrap(admin.client.GET('/orgs/{organizationId}/conversations-issues/{issueId}', { params: { path: { organizationId, issueId: listed.issue.id } } }));
      expect(got).toEqual(listed);
      expectError(await admin.client.GET('/orgs/{organizationId}/conversations-issues/{issueId}', { params: { path: { organizationId, issueId: 'missing' } } }), 404);
      expectError(await other.admin.client.GET('/orgs/{organizationId}/conversations-issues/{issueId}', { params: { path: { organizationId: other.organizationId, issueId: listed.issue.id } } }), 404);
    });
  });

  describe('listConversationsIssuesClusters', () => {
    it('finds several issues in one conversation and groups similar issues into one cluster with its figures', async () => {
      const { organizationId, admin } = await org();
      const now = new Date();
      const lastWeek = new Date(Date.parse(pulseWeeks(now)[11]!) + 3600_000).toISOString();
      await unwrap(ingest(admin.client, organizationId, [
        { id: 'a', parts: [message('Our SAML SSO login fails with error 500 after the redirect.'), message('Also, the PDF export of the handbook never finishes and the PDF is never downloaded.')], metadata: { createdAt: lastWeek } },
        { id: 'b', parts: [message('SAML SSO login gives error 500 after the Okta redirect for everyone.')] },
        { id: 'c', parts: [message('SSO login with SAML broken: error 500 on the redirect back.')] },
      ], 'email'));
      await runJobs();
      const all = await issues(admin.client, organizationId);
      expect(all.count).toBe(4);
      const list = await clusters(admin.client, organizationId, { orderBy: 'issues' });
      expect(list.items.length).toBe(2);
      const ssoCluster = list.items[0]!;
      expect(ssoCluster).toMatchObject({ object: 'issues-cluster', icon: 'lock', sources: { email: 3 }, stats: { issues: 3, conversations: 3, tasksTotal: 0 } });
      expect(ssoCluster.weeklyPulse).toHaveLength(13);
      expect(ssoCluster.weeklyPulse[11]).toBe(1);
      expect(ssoCluster.weeklyPulse[12]).toBe(2);
      expect(ssoCluster.label).toMatch(/SSO/);
      expect((await issues(admin.client, organizationId, { cluster: ssoCluster.id })).count).toBe(3);
      expect((await clusters(admin.client, organizationId, { status: 'pending' })).count).toBe(0);
      expect((await clusters(admin.client, organizationId, { orderBy: 'issues', order: 'asc' })).items[0]!.stats.issues).toBe(1);
      const got = await unwrap(admin.client.GET('/orgs/{organizationId}/conversations-clusters/{clusterId}', { params: { path: { organizationId, clusterId: ssoCluster.id } } }));
      expect(got).toEqual(ssoCluster);

      // Change requests linked to the cluster are its tasks, counted by status, and the lists filter by it.
      const space = await createSpace({ organizationId, client: admin.client });
      const cr = await unwrap(admin.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: { subject: 'Document SSO errors', conversationsIssuesCluster: ssoCluster.id } }));
      expect(cr.conversationsIssuesCluster).toBe(ssoCluster.id);
      const second = await unwrap(admin.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: {} }));
      await unwrap(admin.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: { spaceId: space.id, changeRequestId: second.id } }, body: { conversationsIssuesCluster: ssoCluster.id, status: 'open' } }));
      const stats = (await unwrap(admin.client.GET('/orgs/{organizationId}/conversations-clusters/{clusterId}', { params: { path: { organizationId, clusterId: ssoCluster.id } } }))).stats;
      expect(stats).toMatchObject({ tasksTotal: 2, tasksBacklog: 1, tasksStarted: 1, tasksCompleted: 0, tasksCancelled: 0 });
      expect((await clusters(admin.client, organizationId, { orderBy: 'tasksTotal' })).items[0]!.id).toBe(ssoCluster.id);
      const linked = await unwrap(admin.client.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id }, query: { status: 'draft', conversationsIssuesCluster: ssoCluster.id } } }));
      expect(linked.items.map((item) => item.id)).toEqual([cr.id]);
      const unlinked = await unwrap(admin.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: { spaceId: space.id, changeRequestId: second.id } }, body: { conversationsIssuesCluster: null } }));
      expect(unlinked.conversationsIssuesCluster).toBeUndefined();
      expectError(await admin.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: { conversationsIssuesCluster: 'noSuchCluster' } }), 400, /conversationsIssuesCluster/);
    });


    it('groups the same input into the same clusters every time', async () => {
      const corpus = generateCorpus({ count: 60, seed: 42 }).map((item) => item.conversation);
      const partitions: string[][] = [];
      for (let round = 0; round < 2; round++) {
        const { organizationId, admin } = await org();
        await unwrap(ingest(admin.client, organizationId, corpus));
        await runJobs();
        const listed = await issues(admin.client, organizationId);
        const byConversation = new Map((await conversations(admin.client, organizationId)).items.map((item) => [item.id, item]));
        const details = await Promise.all([...byConversation.keys()].map((conversationId) => unwrap(admin.client.GET('/orgs/{organizationId}/conversations/{conversationId}', { params: { path: { organizationId, conversationId } } }))));
        const externalOf = new Map(details.map((detail, index) => [detail.conversation.id, corpus.find((input) => JSON.stringify(input.parts) === JSON.stringify(detail.parts))!.id ?? String(index)]));
        const members = new Map<string, string[]>();
        for (const item of listed.items) {
          const key = `${externalOf.get(item.issue.conversation)}:${item.issue.title}`;
          members.set(item.issue.cluster!, [...(members.get(item.issue.cluster!) ?? []), key]);
        }
        partitions.push([...members.values()].map((keys) => keys.sort().join('|')).sort());
      }
      expect(partitions[0]).toEqual(partitions[1]);
      expect(partitions[0]!.length).toBeGreaterThan(5);
    });


    it('pages through clusters in every order without repeating one', async () => {
      const { organizationId, admin } = await org();
      await unwrap(ingest(admin.client, organizationId, generateCorpus({ count: 40, seed: 3 }).map((item) => item.conversation)));
      await runJobs();
      const total = (await clusters(admin.client, organizationId)).count;
      for (const orderBy of ['updatedAt', 'issues', 'conversations', 'tasksTotal']) {
        const seen: string[] = [];
        let page: string | undefined;
        do {
          const result = await clusters(admin.client, organizationId, { orderBy, limit: 3, ...(page ? { page } : {}) });
          seen.push(...result.items.map((item) => item.id));
          page = result.next?.page;
        } while (page);
        expect(new Set(seen).size).toBe(total);
        expect(seen.length).toBe(total);
      }
      const issuesPage = await clusters(admin.client, organizationId, { orderBy: 'issues', limit: 1 });
      expectError(await admin.client.GET('/orgs/{organizationId}/conversations-clusters', { params: { ...path(organizationId), query: { orderBy: 'updatedAt', page: issuesPage.next!.page } } }), 400);
    });
  });

  describe('getConversationsIssuesCluster', () => {
    it('answers one cluster as the list does; 404 for unknown ids and from another organization', async () => {
      const { organizationId, admin } = await org();
      const other = await org();
      await unwrap(ingest(admin.client, organizationId, [{ id: 'a', parts: [message('Search does not find pages by title')] }, { id: 'b', parts: [message('Search cannot find our pages by their title')] }]));
      await runJobs();
      const listed = (await clusters(admin.client, organizationId)).items[0]!;
      expect(await unwrap(admin.client.GET('/orgs/{organizationId}/conversations-clusters/{clusterId}', { params: { path: { organizationId, clusterId: listed.id } } }))).toEqual(listed);
      expectError(await admin.client.GET('/orgs/{organizationId}/conversations-clusters/{clusterId}', { params: { path: { organizationId, clusterId: 'missing' } } }), 404);
      expectError(await other.admin.client.GET('/orgs/{organizationId}/conversations-clusters/{clusterId}', { params: { path: { organizationId: other.organizationId, clusterId: listed.id } } }), 404);
    });
  });

  describe('conversations access', () => {
    it('answers 404 to other organizations and for unknown ids, 403 to guests and readers who may not ingest', async () => {
      const { organizationId, admin, people } = await org({ reader: 'read', guest: null });
      const other = await org();
      await unwrap(ingest(admin.client, organizationId, { id: 'a', parts: [message('Images fail to upload to our pages')] }));
      await runJobs();
      const conversation = (await conversations(admin.client, organizationId)).items[0]!;
      const issue = (await issues(admin.client, organizationId)).items[0]!.issue;
      const cluster = (await clusters(admin.client, organizationId)).items[0]!;
      expect((await conversations(people.reader!.client, organizationId)).count).toBe(1);
      expectError(await ingest(people.reader!.client, organizationId, { id: 'b', parts: [message('x y z')] }), 403);
      expectError(await people.guest!.client.GET('/orgs/{organizationId}/conversations', { params: path(organizationId) }), 403);
      for (const client of [other.admin.client]) {
        expectError(await ingest(client, organizationId, { id: 'c', parts: [message('x y z')] }), 404);
        expectError(await client.GET('/orgs/{organizationId}/conversations', { params: path(organizationId) }), 404);
        expectError(await client.GET('/orgs/{organizationId}/conversations/{conversationId}', { params: { path: { organizationId, conversationId: conversation.id } } }), 404);
        expectError(await client.GET('/orgs/{organizationId}/conversations-issues/{issueId}', { params: { path: { organizationId, issueId: issue.id } } }), 404);
        expectError(await client.GET('/orgs/{organizationId}/conversations-clusters/{clusterId}', { params: { path: { organizationId, clusterId: cluster.id } } }), 404);
        expectError(await client.GET('/orgs/{organizationId}/conversations/{conversationId}', { params: { path: { organizationId: other.organizationId, conversationId: conversation.id } } }), 404);
      }
      expectError(await admin.client.GET('/orgs/{organizationId}/conversations-issues/{issueId}', { params: { path: { organizationId, issueId: 'missing' } } }), 404);
      expectError(await admin.client.GET('/orgs/{organizationId}/conversations-clusters/{clusterId}', { params: { path: { organizationId, clusterId: 'missing' } } }), 404);
      expect((await conversations(admin.client, organizationId)).count).toBe(1);
    });
  });
});

describeEachDialect('conversation analysis and the event loop', (dialect) => {
  const server = useTestServer({ dialect, jobHandlers: allJobHandlers() });

  it('keeps answering /healthz quickly while a batch of 1,000 conversations is analysed', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Busy support');
    const corpus = generateCorpus({ count: 1000, seed: 77 }).map((item) => item.conversation);
    for (let start = 0; start < corpus.length; start += 250) {
      await unwrap(admin.client.POST('/orgs/{organizationId}/conversations', { params: { path: { organizationId } }, body: corpus.slice(start, start + 250) as never }));
    }
    const latencies: number[] = [];
    const pending = async () => (await unwrap(admin.client.GET('/orgs/{organizationId}/conversations', { params: { path: { organizationId }, query: { limit: 1000 } } }))).items.filter((item) => !item.processedAt).length;
    const deadline = Date.now() + 240_000;
    while (await pending() > 0) {
      if (Date.now() > deadline) throw new Error('the analysis did not finish in time');
      for (let probe = 0; probe < 20; probe++) {
        const started = performance.now();
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    latencies.sort((a, b) => a - b);
    // The analysis runs in a worker thread and writes in short statements, so the event loop stays free: on
    // the event loop, grouping this batch would hold every answer for seconds. The bounds leave room for a
    // 2-core machine that also runs the analysis thread and other test files.
    expect(latencies.length).toBeGreaterThan(20);
    expect(latencies[Math.floor(latencies.length * 0.95)]!).toBeLessThan(100);
    expect(latencies[latencies.length - 1]!).toBeLessThan(1000);
    expect((await unwrap(admin.client.GET('/orgs/{organizationId}/conversations-issues', { params: { path: { organizationId }, query: { limit: 1 } } }))).count).toBeGreaterThan(1000);
  }, 300_000);
});
