import { unwrap } from '@quire/client';
import type { PublishedContentLookup } from '@quire/api-types';
import { expect, it } from 'vitest';
import { loadBundledContract, type OperationInfo } from '../../src/http/openapi/contract.js';
import { visitorMayCall } from '../../src/policies/visitor-policy.js';
import { describeEachDialect } from '../dialects.js';
import { createSpace, newOrg, useTestServer } from '../helpers.js';
import { buildWorld } from './providers.js';
import { hasErrorShape, runOrder, sendRaw, sendValid, snapshotUrl, validRequest } from './requests.js';

/*
 * The visitor-token gate, over every implemented operation of the contract, present and future: the token a
 * visitor of a published site gets from getPublishedContentByUrl is sent with each operation's valid request
 * (real ids of the gate's world, whose site publishes the gate space). Outside visitor-policy's reads every
 * operation answers 403 in the error shape and changes nothing; the reads let it through for the site's own
 * content, and answer 404 for another organization's visitor. The token still works at the end: nothing the
 * gate sent changed the site.
 */

describeEachDialect('visitor-token gate', (dialect) => {
  const server = useTestServer({ dialect });

  it('refuses a visitor token on every operation outside the published reads (403, nothing changed) and scopes the reads to its site', async () => {
    const started = Date.now();
    const contract = loadBundledContract();
    const quire = server.running.quire;
    const world = await buildWorld(server, 'Visitor gate organization');
    const { organizationId, siteId } = world.ids as { organizationId: string; siteId: string };
    const sitePath = { params: { path: { organizationId, siteId } } };
    const site = await unwrap(world.org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', sitePath));
    const visitor = (await unwrap(server.client().GET('/urls/published', { params: { query: { url: site.urls.published! } } }))) as PublishedContentLookup;
    const token = visitor.apiToken;

    // A visitor of another organization's published site, for the 404s of the reads.
    const other = await newOrg(server, 'Other visitor organization');
    const otherSpace = await createSpace(other, { title: 'Elsewhere' });
    const otherSite = await unwrap(other.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId: other.organizationId } }, body: { title: 'Elsewhere', spaces: [otherSpace.id] } }));
    const otherPublished = await unwrap(other.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: { path: { organizationId: other.organizationId, siteId: otherSite.id } } }));
    const foreignToken = ((await unwrap(server.client().GET('/urls/published', { params: { query: { url: otherPublished.urls.published! } } }))) as PublishedContentLookup).apiToken;

    const operations = quire.operations
      .filter((operation) => quire.implemented.has(operation.operationId) && operation.requiresAuth)
      .sort(runOrder);
    const failures: string[] = [];
    const figures = { refused: 0, reads: 0, foreign: 0, requests: 0 };
    const snapshot = async (url: string | undefined) => (url ? (await sendRaw('get', url, { token: world.org.token })).text : '');

    for (const operation of operations) {
      const request = validRequest(contract, operation, world);
      const label = operation.operationId;
      if (!visitorMayCall(operation.operationId)) {
        const url = snapshotUrl(server.url, operation, quire.operations, world);
        const before = await snapshot(url);
        const answer = await sendValid(server.url, operation, request, token);
        figures.requests += 1;
        figures.refused += 1;
        if (answer.status !== 403) failures.push(`${label}: ${answer.status} where 403 was due: ${answer.text.slice(0, 160)}`);
        else if (!hasErrorShape(answer)) failures.push(`${label}: 403 without the error shape`);
        if (url && (await snapshot(url)) !== before) failures.push(`${label}: refused, but ${url} changed`);
        continue;
      }
      figures.reads += 1;
      const own = await sendValid(server.url, operation, request, token);
      const foreign = await sendValid(server.url, operation, request, foreignToken);
      figures.requests += 2;
      // The gate space is published on the site (in its section), so the site's own visitor reads it.
      if (own.status !== 200) failures.push(`${label}: ${own.status} for the site's own visitor: ${own.text.slice(0, 160)}`);
      if (foreign.status !== 404 || !hasErrorShape(foreign)) failures.push(`${label}: ${foreign.status} for another organization's visitor, where 404 was due`);
      else figures.foreign += 1;
    }

    // Nothing above closed the token: the site is still published as it was.
    const still = await sendRaw('get', `${server.url}/v1/spaces/${world.ids.spaceId}`, { token });
    if (still.status !== 200) failures.push(`the visitor token no longer reads the site after the gate: ${still.status}`);
    const reads = operations.filter((operation: OperationInfo) => visitorMayCall(operation.operationId)).map((operation) => operation.operationId);

    console.log([
      `[visitor-token gate ${dialect}] ${operations.length} operations with authentication; ${figures.refused} refused with 403; reads let through: ${reads.join(', ')}`,
      `  another organization's visitor refused (404) on ${figures.foreign} reads; ${figures.requests} requests; failures: ${failures.length}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
      ...failures.map((failure) => `  FAIL ${failure}`),
    ].join('\n'));
    // The published reads of visitor-policy.ts: the site, its spaces, their pages, files and reusable contents,
    // search, and the images of the site's logo and icon.
    expect(reads.length).toBe(10);
    expect(failures).toEqual([]);
  }, 600_000);
});
