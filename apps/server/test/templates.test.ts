import { unwrap, type QuireClient } from '@quire/client';
import type { RevisionPage } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { SEARCH_REINDEX_JOB } from '../src/services/search-reindex.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, healthzWhile, newMember, newOrg, type TestOrg, useTestServer } from './helpers.js';
import { contentFixtures, crPath, md, textFile } from './content-fixtures.js';
import { countStoredRows, storedJobs, storedRevision } from './storage-facts.js';

const PETSTORE_YAML = `
openapi: 3.0.3
info:
  title: Petstore
  version: 1.2.0
  description: Sells pets.
tags:
  - name: pets
    description: Everything about your pets.
  - name: unused
paths:
  /pets:
    parameters:
      - $ref: '#/components/parameters/Tenant'
    get:
      tags: [pets]
      summary: List all pets
      operationId: listPets
      parameters:
        - name: limit
          in: query
          description: How many items to return | at most 100
          schema:
            type: integer
            format: int32
      responses:
        '200':
          description: A paged array of pets
        default:
          $ref: '#/components/responses/Error'
    post:
      tags: [pets, admin]
      summary: Create a pet
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/Pet'
      responses:
        '201':
          description: Created
  /pets/{petId}:
    get:
      tags: [pets]
      summary: Info for a specific pet
      deprecated: true
      parameters:
        - name: petId
          in: path
          required: true
          schema:
            type: string
      responses:
        '200':
          description: Expected response to a valid request
  /health:
    get:
      summary: Health check
      responses:
        '204':
          description: Healthy
components:
  parameters:
    Tenant:
      name: X-Tenant
      in: header
      required: false
      schema:
        type: string
  responses:
    Error:
      description: Unexpected error
  schemas:
    Pet:
      type: object
      properties:
        id:
          type: integer
`;

const SWAGGER_JSON = JSON.stringify({
  swagger: '2.0',
  info: { title: 'Legacy', version: '1' },
  consumes: ['application/json'],
  paths: {
    '/items': {
      post: {
        tags: ['items'],
        summary: 'Add an item',
        parameters: [
          { name: 'body', in: 'body', required: true, schema: { type: 'array', items: { $ref: '#/definitions/Item' } } },
          { name: 'dryRun', in: 'query', type: 'boolean' },
        ],
        responses: { 200: { description: 'Added' } },
      },
    },
  },
  definitions: { Item: { type: 'object' } },
});

describeEachDialect('templates', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  type TemplateBody = { id: 'blank' | 'getting-started' | 'openapi-reference'; params?: { contentRefs?: Record<string, { kind: 'file'; file: string } | { kind: 'openapi'; spec: string }> }; changeRequestId?: string };

  function apply(client: QuireClient, spaceId: string, body: TemplateBody) {
    return client.POST('/spaces/{spaceId}/content/template', { params: { path: { spaceId } }, body });
  }

  async function pagesOf(client: QuireClient, spaceId: string, query: { computed?: boolean } = {}): Promise<RevisionPage[]> {
    return (await unwrap(client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId }, query } }))).pages;
  }

  async function markdownOf(client: QuireClient, spaceId: string, pageId: string): Promise<string> {
    return (await unwrap(client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId }, query: { format: 'markdown' } } }))).markdown!;
  }

  /** Search reindexes queued for the space: stored jobs, since the queue is written with the content but shows nowhere. */
  async function queuedReindexes(spaceId: string): Promise<number> {
    const jobs = await storedJobs(server, SEARCH_REINDEX_JOB, spaceId);
    return jobs.filter((job) => job.status === 'queued').length;
  }

  /** A space holding one page and the given spec file; answers the space and the file's id. */
  async function spaceWithSpec(org: TestOrg, name: string, text: string) {
    const space = await createSpace(org);
    const update = await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Intro', document: md('Hello') }, textFile(name, text)]);
    return { space, file: update.insertedFiles![0]!.id };
  }

  /** An OpenAPI document in JSON of about `operations` * 500 characters: operations spread over 20 tags. */
  function largeSpec(operations: number): string {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < operations; i++) {
      paths[`/resource-${i}/{id}`] = {
        get: {
          tags: [`tag-${i % 20}`],
          operationId: `getResource${i}`,
          summary: `Get resource ${i}`,
          description: `Answers resource ${i} by its id, with *every* field of it, **as stored**. See [the guide](https://example.com/guide/${i}) for more about resources.`,
          parameters: [{ name: 'id', in: 'path', required: true, description: 'Id of the resource', schema: { type: 'string' } }],
          responses: { 200: { description: `Resource ${i}` }, 404: { description: 'No such resource' } },
        },
      };
    }
    return JSON.stringify({ openapi: '3.0.3', info: { title: 'Large API', version: '1.0.0' }, paths });
  }

  describe('applyTemplateToSpace on the main content', () => {
    it('keeps /healthz answering within 100 ms (p95) while a large OpenAPI document becomes pages', async () => {
      const org = await newOrg(server);
      const spec = largeSpec(1500);
      const { space, file } = await spaceWithSpec(org, 'large.json', spec);
      const started = performance.now();
      const { result, answers, p95, max } = await healthzWhile(server.url, apply(org.client, space.id, { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'file', file } } } }));
      expect(result.response.status, JSON.stringify(result.error)).toBe(201);
      console.log(`openapi-reference template from ${spec.length} characters of OpenAPI: ${(performance.now() - started).toFixed(0)} ms; /healthz meanwhile: ${answers} answers, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
      expect(answers).toBeGreaterThan(5);
      expect(p95).toBeLessThan(100);
      const reference = (await pagesOf(org.client, space.id))[1]!;
      expect(reference.pages).toHaveLength(20);
      expect(await markdownOf(org.client, space.id, reference.pages[0]!.id)).toContain('## Get resource 1480');
    }, 300_000);

    it('refuses a specification whose pages would pass the content limits, with a 400 naming the limit', async () => {
      const org = await newOrg(server);
      const deep = JSON.stringify({ openapi: '3.0.3', info: { title: 'Deep', version: '1', description: `${'>'.repeat(40)} deep` }, paths: {} });
      const { space, file } = await spaceWithSpec(org, 'deep.json', deep);
      const before = await f.getSpace(org.client, space.id);
      expectError(await apply(org.client, space.id, { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'file', file } } } }), 400,
        'body.params.contentRefs.spec: the markdown of the reference page nests quotes and lists up to 40 levels deep; the limit is 32 levels');
      expect((await f.getSpace(org.client, space.id)).revision).toBe(before.revision);
    });

    it('adds an Untitled page at the end as a new main revision, and queues the search reindex', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'First', document: md('one') }]);
      const before = await f.getSpace(org.client, space.id);
      const jobsBefore = await queuedReindexes(space.id);
      const result = await apply(org.client, space.id, { id: 'blank' });
      expect(result.response.status).toBe(201);
      expect(await result.response.text()).toBe('');
      const after = await f.getSpace(org.client, space.id);
      expect(after.revision).not.toBe(before.revision);
      const revision = await unwrap(org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: space.id } } }));
      expect(revision).toMatchObject({ id: after.revision, type: 'edits', parents: [before.revision] });
      expect(revision.pages.map((page) => [page.title, page.slug])).toEqual([['First', 'first'], ['Untitled', 'untitled']]);
      expect(await markdownOf(org.client, space.id, revision.pages[1]!.id)).toBe('');
      expect(await queuedReindexes(space.id)).toBe(jobsBefore + 1);
      // Who made the revision is stored only: no API object shows it.
      expect(await storedRevision(server, after.revision)).toMatchObject({ created_by: org.userId, change_request_id: null });
    });

    it('adds the getting-started tree with its example text, the welcome page linking to the quickstart', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      expect((await apply(org.client, space.id, { id: 'getting-started' })).response.status).toBe(201);
      expect((await apply(org.client, space.id, { id: 'getting-started' })).response.status).toBe(201);
      const pages = await pagesOf(org.client, space.id);
      expect(pages.map((page) => [page.title, page.path, page.pages.map((child) => child.path)])).toEqual([
        ['Welcome', 'welcome', ['welcome/quickstart']],
        ['Welcome', 'welcome-2', ['welcome-2/quickstart']],
      ]);
      const welcome = await markdownOf(org.client, space.id, pages[0]!.id);
      expect(welcome).toContain(`[Quickstart](/pages/${pages[0]!.pages[0]!.id})`);
      expect(await markdownOf(org.client, space.id, pages[0]!.pages[0]!.id)).toContain('## Write a page');
      const links = await unwrap(org.client.GET('/spaces/{spaceId}/links', { params: { path: { spaceId: space.id } } }));
      expect(links.stats).toEqual({ total: 2, broken: { total: 0 } });
    });

    it('builds an API reference from a YAML OpenAPI file: one page per tag with its operations', async () => {
      const org = await newOrg(server);
      const { space, file } = await spaceWithSpec(org, 'petstore.yaml', PETSTORE_YAML);
      const result = await apply(org.client, space.id, { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'file', file } } } });
      expect(result.response.status, JSON.stringify(result.error)).toBe(201);
      const pages = await pagesOf(org.client, space.id);
      expect(pages.map((page) => page.title)).toEqual(['Intro', 'API reference']);
      const reference = pages[1]!;
      expect(reference).toMatchObject({ type: 'document', slug: 'api-reference' });
      expect(reference.computed).toBeUndefined();
      expect(reference.pages.map((page) => page.title)).toEqual(['pets', 'admin', 'default']);
      expect(await markdownOf(org.client, space.id, reference.id)).toContain('Reference of Petstore (version 1.2.0), generated from `petstore.yaml`.');

      const pets = await markdownOf(org.client, space.id, reference.pages[0]!.id);
      expect(pets).toContain('Everything about your pets.');
      expect(pets).toContain('## List all pets\n\n`GET /pets`');
      expect(pets).toContain('| `limit` | query | integer (int32) | No | How many items to return \\| at most 100 |');
      expect(pets).toContain('| `X-Tenant` | header | string | No |  |');
      expect(pets).toContain('| 200 | A paged array of pets |');
      expect(pets).toContain('| default | Unexpected error |');
      expect(pets).toContain('## Create a pet\n\n`POST /pets`');
      expect(pets).toContain('Required. Type: Pet. Content types: `application/json`.');
      expect(pets).toContain('## Info for a specific pet\n\n`GET /pets/{petId}`\n\n**Deprecated.**');
      expect(pets).toContain('| `petId` | path | string | Yes |  |');
      expect(await markdownOf(org.client, space.id, reference.pages[1]!.id)).toContain('`POST /pets`');
      expect(await markdownOf(org.client, space.id, reference.pages[2]!.id)).toContain('## Health check\n\n`GET /health`');

      // As its definition: a computed page depending on the file.
      const definition = (await pagesOf(org.client, space.id, { computed: false }))[1]!;
      expect(definition).toMatchObject({ type: 'computed', computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'file', file } } } } });
      expect(typeof definition.computedSeed).toBe('string');
      const page = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.id, pageId: reference.id }, query: { computed: false } } }));
      expect(page.type).toBe('computed');

      // The page depends on the file: a `dependsOn` link, and a backlink of the file.
      const links = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: space.id, pageId: reference.id } } }));
      expect(links.items).toEqual([expect.objectContaining({ status: 'ok', relation: 'dependsOn', targetReference: expect.objectContaining({ kind: 'file', file: expect.objectContaining({ id: file }) }) })]);
      const backlinks = await unwrap(org.client.GET('/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: space.id, fileId: file } } }));
      expect(backlinks.items).toEqual([expect.objectContaining({ kind: 'page', page: expect.objectContaining({ id: reference.id }) })]);
    });

    it('reads Swagger 2.0 JSON too', async () => {
      const org = await newOrg(server);
      const { space, file } = await spaceWithSpec(org, 'legacy.json', SWAGGER_JSON);
      expect((await apply(org.client, space.id, { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'file', file } } } })).response.status).toBe(201);
      const reference = (await pagesOf(org.client, space.id))[1]!;
      expect(reference.pages.map((page) => page.title)).toEqual(['items']);
      const items = await markdownOf(org.client, space.id, reference.pages[0]!.id);
      expect(items).toContain('Required. Type: array of Item. Content types: `application/json`.');
      expect(items).toContain('| `dryRun` | query | boolean | No |  |');
      expect(items).not.toContain('| `body` |');
    });

    it('refuses a wrong spec reference with 400 and changes nothing', async () => {
      const org = await newOrg(server);
      const { space, file } = await spaceWithSpec(org, 'notes.yaml', 'just: text\n');
      const bad = await f.editMain(org, space.id, [textFile('broken.yaml', 'openapi: 3.0.0\npaths: [\n')]);
      const badFile = bad.insertedFiles![0]!.id;
      const before = await f.getSpace(org.client, space.id);
      const spec = (ref: unknown) => ({ id: 'openapi-reference' as const, params: { contentRefs: { spec: ref as { kind: 'file'; file: string } } } });
      expectError(await apply(org.client, space.id, spec({ kind: 'openapi', spec: 'petstore' })), 400, /no OpenAPI specification "petstore" with a processed version/);
      expectError(await apply(org.client, space.id, spec({ kind: 'file', file: 'missing' })), 400, /names no file of the space/);
      expectError(await apply(org.client, space.id, spec({ kind: 'file', file })), 400, /not an OpenAPI specification: it has no `openapi`/);
      expectError(await apply(org.client, space.id, spec({ kind: 'file', file: badFile })), 400, /not an OpenAPI specification: it is not valid JSON or YAML/);
      expectError(await apply(org.client, space.id, spec({ kind: 'page', page: 'x' })), 400, /spec/);
      expectError(await apply(org.client, space.id, { id: 'openapi-reference' }), 400, /params/);
      expectError(await apply(org.client, space.id, { id: 'openapi-reference', params: { contentRefs: {} } }), 400, /spec/);
      expect((await f.getSpace(org.client, space.id)).revision).toBe(before.revision);
    });

    it('refuses invalid bodies with 400 naming the field', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const post = (body: unknown) => org.client.POST('/spaces/{spaceId}/content/template', { params: { path: { spaceId: space.id } }, body: body as never });
      expectError(await post({ id: 'fancy' }), 400, /body\.id/);
      expectError(await post({}), 400, /id/);
      expectError(await post({ id: 'blank', extra: true }), 400, /extra/);
      expectError(await post({ id: 'blank', changeRequestId: '' }), 400, /changeRequestId/);
      expectError(await post({ id: 'blank', params: { other: {} } }), 400, /other/);
      expect(await pagesOf(org.client, space.id)).toEqual([]);
    });

    it('answers 401, 404 for another organization or a deleted space, and 403 below edit or on a locked space', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      expectError(await apply(server.client(), space.id, { id: 'blank' }), 401);
      expectError(await apply((await newOrg(server, 'Other')).client, space.id, { id: 'blank' }), 404);
      expectError(await apply((await newMember(server, org, null)).client, space.id, { id: 'blank' }), 404);
      for (const role of ['read', 'comment'] as const) expectError(await apply((await newMember(server, org, role)).client, space.id, { id: 'blank' }), 403, /edit permission/);
      expect((await apply((await newMember(server, org, 'edit')).client, space.id, { id: 'blank' })).response.status).toBe(201);
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'locked' } }));
      expectError(await apply(org.client, space.id, { id: 'blank' }), 403, /locked/);
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'live' } }));
      await unwrap(org.client.DELETE('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }));
      expectError(await apply(org.client, space.id, { id: 'blank' }), 404);
      expect((await pagesOf(org.client, (await createSpace(org)).id))).toEqual([]);
    });

    it('keeps every template when several are applied at once', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const results = await Promise.all(Array.from({ length: 10 }, () => apply(org.client, space.id, { id: 'blank' })));
      expect(results.map((result) => result.response.status)).toEqual(Array(10).fill(201));
      expect((await pagesOf(org.client, space.id)).map((page) => page.slug)).toEqual(['untitled', ...Array.from({ length: 9 }, (_, i) => `untitled-${i + 2}`)]);
      // One revision per template, none lost or merged into another: a fact of storage, revisions are not listed.
      expect(await countStoredRows(server, 'revisions', space.id)).toBe(11);
    });
  });

  describe('applyTemplateToSpace into a change request', () => {
    it('adds the pages as a new revision of the request, by id or number, leaving main unchanged', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const editor = await newMember(server, org, 'edit');
      const cr = await f.createCr(org.client, space.id);
      const main = (await f.getSpace(org.client, space.id)).revision;
      const jobsBefore = await queuedReindexes(space.id);
      expect((await apply(editor.client, space.id, { id: 'getting-started', changeRequestId: cr.id })).response.status).toBe(201);
      expect((await apply(org.client, space.id, { id: 'blank', changeRequestId: String(cr.number) })).response.status).toBe(201);
      const after = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: crPath(space.id, cr.id) } }));
      expect(after.revision).not.toBe(cr.revision);
      const revision = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: crPath(space.id, cr.id) } }));
      expect(revision.id).toBe(after.revision);
      expect(revision.pages.map((page) => page.title)).toEqual(['Welcome', 'Untitled']);
      expect((await f.getSpace(org.client, space.id)).revision).toBe(main);
      expect(await pagesOf(org.client, space.id)).toEqual([]);
      expect(await queuedReindexes(space.id)).toBe(jobsBefore);
      const contributedTo = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id }, query: { status: 'draft', contributor: editor.userId } } }));
      expect(contributedTo.items.map((item) => item.id)).toEqual([cr.id]);
      // The request a revision was made for is stored only: no API object shows it.
      expect((await storedRevision(server, after.revision)).change_request_id).toBe(cr.id);
    });

    it('reads the spec file from the content of the request', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const cr = await f.createCr(org.client, space.id);
      const update = await f.editCr(org.client, space.id, cr.id, [textFile('api.json', JSON.stringify({ openapi: '3.1.0', info: { title: 'Mini', version: '0' }, paths: { '/ping': { get: { responses: { 200: { description: 'pong' } } } } } }))]);
      const file = update.insertedFiles![0]!.id;
      expectError(await apply(org.client, space.id, { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'file', file } } } }), 400, /names no file of the space/);
      expect((await apply(org.client, space.id, { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'file', file } } }, changeRequestId: cr.id })).response.status).toBe(201);
      const pages = (await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', { params: { path: crPath(space.id, cr.id) } }))).pages;
      expect(pages.map((page) => [page.title, page.pages.map((child) => child.title)])).toEqual([['API reference', ['default']]]);
    });

    it('answers 404 for an unknown request and 409 for a merged or archived one', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      expectError(await apply(org.client, space.id, { id: 'blank', changeRequestId: 'missing' }), 404, /change request/);
      const otherSpace = await createSpace(org);
      const foreign = await f.createCr(org.client, otherSpace.id);
      expectError(await apply(org.client, space.id, { id: 'blank', changeRequestId: foreign.id }), 404, /change request/);

      const archived = await f.createCr(org.client, space.id);
      await unwrap(org.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: crPath(space.id, archived.id) }, body: { status: 'archived' } }));
      expectError(await apply(org.client, space.id, { id: 'blank', changeRequestId: archived.id }), 409, /archived/);

      const merged = await f.createCr(org.client, space.id);
      await f.editCr(org.client, space.id, merged.id, [{ operation: 'insert_page', title: 'Merged', document: md('x') }]);
      await f.merge(org.client, space.id, merged.id);
      const before = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: crPath(space.id, merged.id) } }));
      expectError(await apply(org.client, space.id, { id: 'blank', changeRequestId: merged.id }), 409, /merged/);
      const after = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: crPath(space.id, merged.id) } }));
      expect(after.revision).toBe(before.revision);
      expectError(await apply((await newMember(server, org, 'read')).client, space.id, { id: 'blank', changeRequestId: merged.id }), 403);
    });
  });
});
