import { findUserPasswordHash } from '../src/stores/user-password-store.js';
import { materializeRoot, type MaterializedTree } from '../src/content/index.js';
import type { Database } from '../src/db/schema.js';
import { SqlObjectReader } from '../src/stores/content-object-store.js';
import { findJob, type JobRow } from '../src/stores/job-store.js';
import { findLinkSet, type RevisionLinkSetRow } from '../src/stores/revision-link-store.js';
import { findRevisionById, type RevisionRow } from '../src/stores/revision-store.js';
import { findIndexedRevision } from '../src/stores/search-store.js';
import type { TestServer } from './server.js';

/*
 * What a test server stored, read from its database, for the tests whose subject is storage itself: that a
 * refused request wrote nothing, that a secret is stored only sealed, that a purge or a delete left nothing
 * behind, that equal content is stored once, that a job was queued with the write that asked for it, that a
 * revision records who made it. Everything a client can see is read through the API instead, and each use
 * of these says why the test looks at storage. Store functions are used where the server has them.
 */

/** Tables whose rows tests count, and the column that ties a row to its space when counted per space. */
const SPACE_COLUMN = {
  revisions: 'space_id',
  change_requests: 'space_id',
  comments: 'space_id',
  comment_replies: 'space_id',
  content_objects: undefined,
  jobs: undefined,
} as const satisfies Partial<Record<keyof Database, string | undefined>>;

/** How many rows `table` holds, all of them or those of one space. */
export async function countStoredRows(server: TestServer, table: keyof typeof SPACE_COLUMN, spaceId?: string): Promise<number> {
  const column = SPACE_COLUMN[table];
  if (spaceId !== undefined && column === undefined) throw new Error(`${table} rows belong to no space`);
  let query = server.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('count'));
  if (spaceId !== undefined) query = query.where(column!, '=', spaceId);
  return Number((await query.executeTakeFirstOrThrow()).count);
}

/** The stored revision row: who made it and for which change request, which no API object shows. */
export async function storedRevision(server: TestServer, revisionId: string): Promise<RevisionRow> {
  const revision = await findRevisionById(server.db, revisionId);
  if (!revision) throw new Error(`no revision ${revisionId} is stored`);
  return revision;
}

/** Every revision row of a space, oldest first (revisions a client cannot list, e.g. standalone imports). */
export async function storedRevisionsOfSpace(server: TestServer, spaceId: string): Promise<RevisionRow[]> {
  return server.db.selectFrom('revisions').selectAll().where('space_id', '=', spaceId).orderBy('created_at').orderBy('id').execute();
}

/** Every revision row written for a change request. */
export async function storedRevisionsOfChangeRequest(server: TestServer, changeRequestId: string): Promise<RevisionRow[]> {
  return server.db.selectFrom('revisions').selectAll().where('change_request_id', '=', changeRequestId).orderBy('created_at').orderBy('id').execute();
}

/** The stored tree of a revision: content hashes, blob hashes and Git locations as stored. */
export async function storedTree(server: TestServer, revisionId: string): Promise<MaterializedTree> {
  return materializeRoot(new SqlObjectReader(server.db), (await storedRevision(server, revisionId)).root);
}

/** Which of these content hashes have their bytes in the database (rather than in the blob storage). */
export async function blobsInDatabase(server: TestServer, hashes: readonly string[]): Promise<string[]> {
  const reader = new SqlObjectReader(server.db);
  const found: string[] = [];
  for (const hash of hashes) if ((await reader.getBlob(hash)) !== undefined) found.push(hash);
  return found;
}

/** Jobs of a kind, oldest first; with `about`, only those whose payload names that id (a space, ...). */
export async function storedJobs(server: TestServer, kind: string, about?: string): Promise<JobRow[]> {
  const jobs = await server.db.selectFrom('jobs').selectAll().where('kind', '=', kind).orderBy('created_at').orderBy('id').execute();
  return about === undefined ? jobs : jobs.filter((job) => job.payload.includes(about));
}

/** One job as stored now. */
export async function storedJob(server: TestServer, jobId: string): Promise<JobRow> {
  const job = await findJob(server.db, jobId);
  if (!job) throw new Error(`no job ${jobId} is stored`);
  return job;
}

/** Every Git sync operation recorded for a space, oldest first (Git info shows only the latest). */
export async function storedGitSyncOperations(server: TestServer, spaceId: string) {
  return server.db.selectFrom('git_sync_operations').selectAll().where('space_id', '=', spaceId).orderBy('started_at').orderBy('id').execute();
}

/** Every row of these tables as JSON, to check that no stored value holds a secret. */
export async function storedText(server: TestServer, tables: ReadonlyArray<keyof Database>): Promise<string> {
  const rows = [];
  for (const table of tables) rows.push(await server.db.selectFrom(table).selectAll().execute());
  return JSON.stringify(rows);
}

/** Replies and reactions still stored for a comment (none once it is deleted or its space purged). */
export async function storedDiscussionOf(server: TestServer, commentId: string): Promise<{ replies: number; reactions: number }> {
  const [replies, reactions] = await Promise.all([
    server.db.selectFrom('comment_replies').select('id').where('comment_id', '=', commentId).execute(),
    server.db.selectFrom('comment_reactions').select('emoji').where('comment_id', '=', commentId).execute(),
  ]);
  return { replies: replies.length, reactions: reactions.length };
}

/** The revision a space's search index was last built from, if it has one. */
export async function searchIndexRevision(server: TestServer, spaceId: string): Promise<string | undefined> {
  return findIndexedRevision(server.db, spaceId);
}

/** The order keys of the spaces of a collection, unordered (the API shows the order, not the keys). */
export async function storedSpacePositions(server: TestServer, collectionId: string): Promise<string[]> {
  const rows = await server.db.selectFrom('spaces').select('position').where('collection_id', '=', collectionId).execute();
  return rows.map((row) => row.position);
}

/** The links of a revision as worked out and kept (none before a read asked for them). */
export async function storedLinks(server: TestServer, revisionId: string): Promise<{ set: RevisionLinkSetRow; rows: number } | undefined> {
  const set = await findLinkSet(server.db, revisionId);
  if (!set) return undefined;
  const rows = await server.db.selectFrom('revision_links').select('item_key').where('revision_id', '=', revisionId).execute();
  return { set, rows: rows.length };
}

/** Browser sessions scoped to the organization (opened through its SSO), of everyone: an operation lists only the caller's. */
export async function storedSessionCount(server: TestServer, organizationId: string): Promise<number> {
  const rows = await server.db.selectFrom('browser_sessions').select('id').where('organization_id', '=', organizationId).execute();
  return rows.length;
}

/** The password hash stored for a user (none for people who never set one). */
export async function storedPasswordHash(server: TestServer, userId: string): Promise<string | undefined> {
  return findUserPasswordHash(server.db, userId);
}

/** Rows of the OpenID Connect tables: what a refused sign-in must not have added. */
export async function storedOidcRows(server: TestServer): Promise<{ identities: number; pending: number }> {
  const identities = await server.db.selectFrom('user_oidc_identities').select('subject').execute();
  const pending = await server.db.selectFrom('oidc_pending_logins').select('state_hash').execute();
  return { identities: identities.length, pending: pending.length };
}
