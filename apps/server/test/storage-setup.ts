import { TreeWriter, WorkingTree, type FileObject } from '../src/content/index.js';
import { newId, nowIso } from '../src/ids.js';
import { updateChangeRequestRow } from '../src/stores/change-request-store.js';
import { updateComment } from '../src/stores/comment-store.js';
import { putObjects, SqlObjectReader } from '../src/stores/content-object-store.js';
import { insertRevision } from '../src/stores/revision-store.js';
import { findSpaceById, setSpaceMainRevision, updateSpace } from '../src/stores/space-store.js';
import { storedRevision } from './storage-facts.js';
import type { TestServer } from './server.js';

/*
 * States no operation can reach, written straight into a test server's database: time travel (a deletion
 * older than the retention, a job due now or not for years), and what no operation writes yet (review
 * requests, a change request's conversations cluster, Git metadata and page variables in main content).
 * Everything a client can do is set up through the API instead. Store functions are used where the server
 * has them.
 */

/** Moves a deleted space's deletion time, e.g. past the retention, as if that much time had gone by. */
export async function backdateSpaceDeletion(server: TestServer, spaceId: string, deletedAt: Date): Promise<void> {
  await updateSpace(server.db, spaceId, { deleted_at: deletedAt.toISOString() });
}

/** Makes these jobs due at `runAt` (the past: now; far in the future: not before the test ends). */
export async function setJobsDueAt(server: TestServer, jobIds: readonly string[], runAt: Date): Promise<void> {
  await server.db.updateTable('jobs').set({ run_at: runAt.toISOString() }).where('id', 'in', jobIds).execute();
}

/** Puts finished jobs back in the queue with no attempt counted, as if they had never run. */
export async function requeueJobs(server: TestServer, jobIds: readonly string[]): Promise<void> {
  await server.db.updateTable('jobs').set({ status: 'queued', attempts: 0 }).where('id', 'in', jobIds).execute();
}

/** Removes a queued job, so that no later run of the suite's job runner picks it up. */
export async function dropJob(server: TestServer, jobId: string): Promise<void> {
  await server.db.deleteFrom('jobs').where('id', '=', jobId).execute();
}

/** Ties a change request to a conversations issues cluster (no operation does yet). */
export async function setConversationsIssuesCluster(server: TestServer, changeRequestId: string, cluster: string): Promise<void> {
  await updateChangeRequestRow(server.db, changeRequestId, { conversations_issues_cluster: cluster });
}

/**
 * Makes a new main revision of the space for content no operation writes (Git metadata, page variables):
 * `build` edits the working tree of the current main content. Answers the new revision's id.
 */
export async function commitMainRevision(
  server: TestServer,
  spaceId: string,
  build: (tree: WorkingTree, writer: TreeWriter) => void,
  revision: { git?: unknown } = {},
): Promise<string> {
  const space = await findSpaceById(server.db, spaceId);
  if (!space) throw new Error(`no space ${spaceId}`);
  const base = await storedRevision(server, space.revision_id);
  const writer = new TreeWriter(new SqlObjectReader(server.db));
  const tree = await WorkingTree.load(writer, base.root);
  build(tree, writer);
  const root = tree.commit(writer);
  const id = newId();
  await server.db.transaction().execute(async (trx) => {
    await putObjects(trx, writer.collect(root));
    await insertRevision(trx, {
      id, space_id: spaceId, type: 'edits', parents: JSON.stringify([base.id]), root, created_at: nowIso(), created_by: null,
      git: revision.git === undefined ? null : JSON.stringify(revision.git), change_request_id: null,
    });
    await setSpaceMainRevision(trx, spaceId, id, nowIso());
  });
  return id;
}

/** A file object for `commitMainRevision`, its bytes stored as a blob of the content store. */
export function fileObject(writer: TreeWriter, file: Omit<FileObject, 'kind' | 'blob' | 'size'> & { bytes: Uint8Array }): FileObject {
  const { bytes, ...rest } = file;
  return { kind: 'file', ...rest, size: bytes.byteLength, blob: writer.putBlob(bytes) };
}

/**
 * Replaces a comment's body with markdown as written, bypassing the content limits that writes enforce:
 * markdown stored before those limits existed, which reads must still answer.
 */
export async function plantCommentMarkdown(server: TestServer, commentId: string, markdown: string): Promise<void> {
  await updateComment(server.db, commentId, { body: markdown, body_format: 'markdown' });
}

/** Moves an invitation's expiry, e.g. into the past, as if its time had run out (the API takes future expiries only). */
export async function setInviteExpiry(server: TestServer, inviteId: string, expiresAt: Date): Promise<void> {
  await server.db.updateTable('organization_invites').set({ expires_at: expiresAt.toISOString() }).where('id', '=', inviteId).execute();
}

/** Moves every pending OpenID Connect sign-in's expiry into the past, as if the person had taken too long. */
export async function expireOidcPendingLogins(server: TestServer): Promise<void> {
  await server.db.updateTable('oidc_pending_logins').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
}

/** Disables a membership: the state an administrator's suspension leaves, which no operation of the contract sets yet. */
export async function disableMembership(server: TestServer, organizationId: string, userId: string): Promise<void> {
  await server.db.updateTable('organization_members').set({ disabled: 1 }).where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

/**
 * Moves a browser session's last use and absolute expiry, as if that much time had gone by: the idle and
 * absolute expiries cannot be waited for in a test.
 */
export async function backdateBrowserSession(server: TestServer, sessionId: string, times: { lastUsedAt?: Date; expiresAt?: Date }): Promise<void> {
  await server.db.updateTable('browser_sessions').set({
    ...(times.lastUsedAt ? { last_used_at: times.lastUsedAt.toISOString() } : {}),
    ...(times.expiresAt ? { expires_at: times.expiresAt.toISOString() } : {}),
  }).where('id', '=', sessionId).execute();
}
