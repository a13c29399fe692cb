import { unwrap, type QuireClient } from '@quire/client';
import type { ChangeRequest, ChangeRequestContentChange, ChangeRequestContentUpdate, Space } from '@quire/api-types';
import { expect } from 'vitest';
import { TreeWriter, WorkingTree, type FileObject } from '../src/content/index.js';
import { newId, nowIso } from '../src/ids.js';
import { allJobHandlers } from '../src/jobs/index.js';
import { JobRunner } from '../src/jobs/runner.js';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { putObjects, SqlObjectReader } from '../src/stores/content-object-store.js';
import type { TestServer } from './server.js';

/*
 * Fixtures of the content read tests (space content, links, templates, search): organizations, spaces,
 * and content written the way clients write it (a change request edited and merged).
 */

export interface Org {
  organizationId: string;
  userId: string;
  token: string;
  client: QuireClient;
}

export function expectError(result: { response: Response; error?: unknown }, status: number, message?: string | RegExp): void {
  expect(result.response.status, JSON.stringify(result.error)).toBe(status);
  const body = result.error as { error: { code: number; message: string } };
  expect(body.error.code).toBe(status);
  if (typeof message === 'string') expect(body.error.message).toBe(message);
  else if (message) expect(body.error.message).toMatch(message);
}

export const crPath = (spaceId: string, changeRequestId: string | number) => ({ spaceId, changeRequestId: String(changeRequestId) });

export function contentFixtures(server: () => TestServer) {
  async function newOrg(title = 'Content org'): Promise<Org> {
    const owner = await server().bootstrap(title);
    return { ...owner, client: server().client(owner.token) };
  }

  async function member(org: Org, role: RoleOrGuest): Promise<{ userId: string; client: QuireClient }> {
    const added = await server().addMember(org.organizationId, `${role ?? 'guest'}-${newId(8).toLowerCase()}@example.com`, role);
    return { userId: added.userId, client: server().client(added.token) };
  }

  async function createSpace(org: Org, body: { title?: string; parent?: string } = {}): Promise<Space> {
    return unwrap(org.client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: org.organizationId } }, body: { title: 'Docs', ...body } }));
  }

  async function getSpace(client: QuireClient, spaceId: string): Promise<Space> {
    return unwrap(client.GET('/spaces/{spaceId}', { params: { path: { spaceId } } }));
  }

  async function createCr(client: QuireClient, spaceId: string): Promise<ChangeRequest> {
    return unwrap(client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body: { subject: 'Edit' } }));
  }

  async function editCr(client: QuireClient, spaceId: string, changeRequestId: string, changes: ChangeRequestContentChange[]): Promise<ChangeRequestContentUpdate> {
    return unwrap(client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: crPath(spaceId, changeRequestId) }, body: { changes } }));
  }

  async function merge(client: QuireClient, spaceId: string, changeRequestId: string): Promise<void> {
    const result = await unwrap(client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', { params: { path: crPath(spaceId, changeRequestId) } }));
    expect(result.result).toBe('merge');
  }

  /** Applies the changes to the main content (a change request, edited and merged); answers the batch's result. */
  async function editMain(org: Org, spaceId: string, changes: ChangeRequestContentChange[]): Promise<ChangeRequestContentUpdate> {
    const cr = await createCr(org.client, spaceId);
    const update = await editCr(org.client, spaceId, cr.id, changes);
    await merge(org.client, spaceId, cr.id);
    return update;
  }

  /** The id of the page inserted with `ref` in a batch. */
  function pageOf(update: ChangeRequestContentUpdate, ref: string): string {
    const change = update.changes.find((item) => item.ref === ref);
    if (!change) throw new Error(`no page was inserted as ${ref}`);
    return change.page;
  }

  /** Runs every queued job now (the test servers run no job runner of their own). */
  async function runJobs(): Promise<number> {
    const runner = new JobRunner({ services: server().running.services, handlers: allJobHandlers() });
    let ran = 0;
    while (await runner.runOnce()) ran++;
    return ran;
  }

  /**
   * Makes a new main revision of the space straight in the database, for what no operation writes yet
   * (Git metadata, page variables): `build` edits the working tree of the current main content.
   */
  async function commitMain(
    spaceId: string,
    build: (tree: WorkingTree, writer: TreeWriter) => void,
    revision: { git?: unknown } = {},
  ): Promise<string> {
    const db = server().db;
    const space = await db.selectFrom('spaces').selectAll().where('id', '=', spaceId).executeTakeFirstOrThrow();
    const base = await db.selectFrom('revisions').selectAll().where('id', '=', space.revision_id).executeTakeFirstOrThrow();
    const writer = new TreeWriter(new SqlObjectReader(db));
    const tree = await WorkingTree.load(writer, base.root);
    build(tree, writer);
    const root = tree.commit(writer);
    const id = newId();
    await db.transaction().execute(async (trx) => {
      await putObjects(trx, writer.collect(root));
      await trx.insertInto('revisions').values({
        id, space_id: spaceId, type: 'edits', parents: JSON.stringify([base.id]), root, created_at: nowIso(), created_by: null,
        git: revision.git === undefined ? null : JSON.stringify(revision.git), change_request_id: null,
      }).execute();
      await trx.updateTable('spaces').set({ revision_id: id }).where('id', '=', spaceId).execute();
    });
    return id;
  }

  /** A file object whose bytes are stored as a blob of the content store. */
  function fileObject(writer: TreeWriter, file: Omit<FileObject, 'kind' | 'blob' | 'size'> & { bytes: Uint8Array }): FileObject {
    const { bytes, ...rest } = file;
    return { kind: 'file', ...rest, size: bytes.byteLength, blob: writer.putBlob(bytes) };
  }

  return { newOrg, member, createSpace, getSpace, createCr, editCr, merge, editMain, pageOf, runJobs, commitMain, fileObject };
}

/** `{ markdown }` content of a page change. */
export const md = (markdown: string) => ({ markdown });

/** An `insert_files` change of one small text file. */
export function textFile(name: string, text: string, ref?: string): ChangeRequestContentChange {
  return { operation: 'insert_files', files: [{ name, base64: Buffer.from(text, 'utf8').toString('base64'), ...(ref ? { ref } : {}) }] };
}
