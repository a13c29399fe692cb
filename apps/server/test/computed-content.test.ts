import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { contentFixtures } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, useTestServer } from './helpers.js';

const PETSTORE = `openapi: 3.0.3
info:
  title: Petstore
  version: 1.0.0
  description: Pets for everyone.
paths:
  /pets:
    get:
      tags: [pets]
      operationId: listPets
      summary: List the pets
      responses:
        '200':
          description: The pets
  /stores:
    get:
      tags: [Pet stores]
      operationId: listStores
      summary: List the stores
      responses:
        '200':
          description: The stores
`;

describeEachDialect('computed content', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  const compute = (client: QuireClient, spaceId: string, source: Record<string, unknown>, seed: unknown = 'seed') =>
    client.POST('/spaces/{spaceId}/content/computed/document', { params: { path: { spaceId } }, body: { source, seed } as never });
  const openapi = (props: Record<string, unknown>, spec = 'petstore') => ({ type: 'builtin:openapi', props, dependencies: { spec: { ref: { kind: 'openapi', spec } } } });
  const text = (value: unknown): string => JSON.stringify(value).replace(/"(object|type|key|isVoid|nodes|data|leaves|marks)":/g, '');

  describe('getComputedDocument', () => {
    it('computes the introduction and a tag\'s operations of the organization\'s OpenAPI reference, as documents', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await unwrap(org.client.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId: org.organizationId } }, body: { slug: 'petstore', source: { text: PETSTORE } } }));
      expectError(await compute(org.client, space.id, openapi({ doc: 'info' })), 422, /no OpenAPI specification "petstore" with a processed version/);
      await f.runJobs();

      const info = await unwrap(compute(org.client, space.id, openapi({ doc: 'info' })));
      expect(info.object).toBe('document');
      expect(text(info)).toContain('Pets for everyone.');
      const operations = await unwrap(compute(org.client, space.id, openapi({ doc: 'operations', page: 'pets' })));
      expect(text(operations)).toContain('List the pets');
      // The same source computes the same document, and a reader of the space may ask.
      const reader = await newMember(server, org, 'read');
      expect(await unwrap(compute(reader.client, space.id, openapi({ doc: 'operations', page: 'pets' }), 'other-seed'))).toEqual(operations);
    });

    it('answers 422 for what Quire does not compute, 400 for a malformed source, 404 for a space the caller cannot see', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await unwrap(org.client.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId: org.organizationId } }, body: { slug: 'petstore', source: { text: PETSTORE } } }));
      await f.runJobs();
      expectError(await compute(org.client, space.id, openapi({ doc: 'models' })), 422, /models/);
      expectError(await compute(org.client, space.id, { type: 'builtin:translation', props: { space: space.id, document: 'd' } }), 422, /builtin:translation/);
      expectError(await compute(org.client, space.id, { type: 'integration:acme:source', props: {} }), 422, /integration:acme:source/);
      expectError(await compute(org.client, space.id, openapi({ doc: 'operations', page: 'no-such-tag' })), 422, /no tag "no-such-tag"/);
      expectError(await compute(org.client, space.id, openapi({ doc: 'info' }, 'no-such-spec')), 422, /no-such-spec/);
      expectError(await compute(org.client, space.id, openapi({ doc: 'operations' })), 400, /props\.page/);
      expectError(await compute(org.client, space.id, openapi({ doc: 'everything' })), 400, /props\.doc/);
      expectError(await compute(org.client, space.id, { type: 'builtin:openapi', props: { doc: 'info' }, dependencies: { spec: { ref: { kind: 'space', space: space.id } } } }), 400, /dependencies\.spec\.ref/);
      expectError(await org.client.POST('/spaces/{spaceId}/content/computed/document', { params: { path: { spaceId: space.id } }, body: { source: openapi({ doc: 'info' }) } as never }), 400, /seed/);
      expectError(await compute(org.client, space.id, { props: {} }), 400, /type/);

      expectError(await compute((await newOrg(server, 'Other')).client, space.id, openapi({ doc: 'info' })), 404);
      expectError(await compute(org.client, 'no-such-space', openapi({ doc: 'info' })), 404);
      expectError(await compute((await newMember(server, org, null)).client, space.id, openapi({ doc: 'info' })), 404);
      expectError(await compute(server.client(), space.id, openapi({ doc: 'info' })), 401);
    });
  });
  describe('getComputedRevision', () => {
    const computeRevision = (client: QuireClient, spaceId: string, source: Record<string, unknown>, seed: unknown = 'seed') =>
      client.POST('/spaces/{spaceId}/content/computed/revision', { params: { path: { spaceId } }, body: { source, seed } as never });

    it('computes a page per tag of the organization\'s OpenAPI reference, with ids from the seed, as the template writes them', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await unwrap(org.client.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId: org.organizationId } }, body: { slug: 'petstore', source: { text: PETSTORE } } }));
      expectError(await computeRevision(org.client, space.id, openapi({ models: false })), 422, /no OpenAPI specification "petstore" with a processed version/);
      await f.runJobs();

      const computed = await unwrap(computeRevision(org.client, space.id, openapi({ models: false }), 'seed-1'));
      expect(computed.files).toEqual([]);
      expect(computed.reusableContents).toEqual([]);
      expect(computed.pages.map((page) => [page.title, page.type, page.slug, page.path])).toEqual([
        ['pets', 'document', 'pets', 'pets'],
        ['Pet stores', 'document', 'pet-stores', 'pet-stores'],
      ]);
      expect(computed.pages[0]!.markdown).toContain('List the pets');
      expect(computed.pages[1]!.markdown).toContain('List the stores');
      expect(computed.pages[0]!.urls.app).toMatch(new RegExp(`/o/${org.organizationId}/s/${space.id}/pets$`));

      // The seed makes the ids: the same seed gives the same ids (a reader of the space may ask), another seed others.
      const reader = await newMember(server, org, 'read');
      const again = await unwrap(computeRevision(reader.client, space.id, openapi({ models: false }), 'seed-1'));
      expect(again.pages.map((page) => page.id)).toEqual(computed.pages.map((page) => page.id));
      const other = await unwrap(computeRevision(org.client, space.id, openapi({ models: false }), 'seed-2'));
      expect(other.pages.map((page) => page.id).some((id) => computed.pages.some((page) => page.id === id))).toBe(false);

      // The template applied to the space writes the same pages, below its computed page.
      await unwrap(org.client.POST('/spaces/{spaceId}/content/template', { params: { path: { spaceId: space.id } }, body: { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'petstore' } } } } }));
      const written = await unwrap(org.client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId: space.id }, query: { computed: false } } }));
      const reference = written.pages.find((page) => page.type === 'computed')!;
      const fromItsSeed = await unwrap(computeRevision(org.client, space.id, openapi({ models: false }), reference.computedSeed));
      expect(fromItsSeed.pages.map((page) => [page.id, page.title])).toEqual(reference.pages.map((page) => [page.id, page.title]));
    });

    it('answers 422 for what Quire does not compute, 400 for a malformed source, 404 for a space the caller cannot see', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await unwrap(org.client.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId: org.organizationId } }, body: { slug: 'petstore', source: { text: PETSTORE } } }));
      await f.runJobs();
      expectError(await computeRevision(org.client, space.id, openapi({ models: true })), 422, /models/);
      expectError(await computeRevision(org.client, space.id, { type: 'builtin:translation', props: {}, dependencies: { translation: { ref: { kind: 'translation', translation: 't' } } } }), 422, /builtin:translation/);
      expectError(await computeRevision(org.client, space.id, { type: 'integration:acme:source', props: {} }), 422, /integration:acme:source/);
      expectError(await computeRevision(org.client, space.id, openapi({ models: false }, 'no-such-spec')), 422, /no-such-spec/);
      expectError(await computeRevision(org.client, space.id, openapi({})), 400, /props\.models/);
      expectError(await computeRevision(org.client, space.id, openapi({ models: 'yes' })), 400, /props\.models/);
      expectError(await computeRevision(org.client, space.id, { type: 'builtin:openapi', props: { models: false }, dependencies: { spec: { ref: { kind: 'space', space: space.id } } } }), 400, /dependencies\.spec\.ref/);
      expectError(await computeRevision(org.client, space.id, openapi({ models: false }), ''), 400, /seed/);
      expectError(await org.client.POST('/spaces/{spaceId}/content/computed/revision', { params: { path: { spaceId: space.id } }, body: { source: openapi({ models: false }) } as never }), 400, /seed/);

      expectError(await computeRevision((await newOrg(server, 'Other')).client, space.id, openapi({ models: false })), 404);
      expectError(await computeRevision(org.client, 'no-such-space', openapi({ models: false })), 404);
      expectError(await computeRevision((await newMember(server, org, null)).client, space.id, openapi({ models: false })), 404);
      expectError(await computeRevision(server.client(), space.id, openapi({ models: false })), 401);
    });
  });
});
