import { sql, type Selectable, type Updateable } from 'kysely';
import type { Db, DialectName } from '../db/index.js';
import type { ChangeRequestsTable } from '../db/schema.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { userDetailColumns, userFrom } from './user-columns.js';
import type { UserRow } from './user-store.js';
import { withContentAccess } from './visibility.js';

export type ChangeRequestRow = Selectable<ChangeRequestsTable>;

/** A change request with what its API object needs besides its own row: its creator and the space's main revision. */
export interface ChangeRequestListing {
  changeRequest: ChangeRequestRow;
  creator: UserRow;
  /** The space's current main revision (for `outdated`). */
  mainRevisionId: string;
  /** The space's current organization (a transferred space keeps its requests). */
  spaceOrganizationId: string;
}

export async function insertChangeRequest(db: Db, row: ChangeRequestRow): Promise<void> {
  await db.insertInto('change_requests').values(row).execute();
}

/** Numbers are written as plain decimal integers; anything else in the path is an id. */
const NUMBER = /^[1-9][0-9]{0,9}$/;

/**
 * The change request of the space named by its id or by its number in the space (an id is tried first, so
 * an id that happens to be all digits still finds its own request). Another space's request is not found.
 */
export async function findChangeRequestInSpace(db: Db, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow | undefined> {
  const byId = await db.selectFrom('change_requests').selectAll().where('space_id', '=', spaceId).where('id', '=', idOrNumber).executeTakeFirst();
  if (byId || !NUMBER.test(idOrNumber)) return byId;
  return db.selectFrom('change_requests').selectAll().where('space_id', '=', spaceId).where('number', '=', Number(idOrNumber)).executeTakeFirst();
}

/** The change request of the space whose merge made the revision `revisionId`, if any. */
export async function findChangeRequestMergedAs(db: Db, spaceId: string, revisionId: string): Promise<ChangeRequestRow | undefined> {
  return db.selectFrom('change_requests').selectAll().where('space_id', '=', spaceId).where('revision_merged', '=', revisionId).executeTakeFirst();
}

/**
 * The row again, locked until the transaction ends on PostgreSQL, so that two writes to the same request
 * (two edits, an edit and a merge) run one after the other. SQLite transactions already hold the only
 * write lock from their first statement (BEGIN IMMEDIATE).
 */
export async function lockChangeRequest(db: Db, dialect: DialectName, id: string): Promise<ChangeRequestRow | undefined> {
  const query = db.selectFrom('change_requests').selectAll().where('id', '=', id);
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * The space's current main revision, with the space row locked until the transaction ends on PostgreSQL,
 * so that a merge writes main on top of exactly the revision it merged with. (Here rather than in the
 * space store because only merges need it, always after locking the change request.)
 */
export async function lockSpaceMainRevision(db: Db, dialect: DialectName, spaceId: string): Promise<string | undefined> {
  const query = db.selectFrom('spaces').select('revision_id').where('id', '=', spaceId);
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  return row?.revision_id;
}

export async function updateChangeRequestRow(db: Db, id: string, patch: Updateable<ChangeRequestsTable>): Promise<void> {
  await db.updateTable('change_requests').set(patch).where('id', '=', id).execute();
}

/** Records that the user contributed to the request; a second contribution changes nothing. */
export async function addChangeRequestContributor(db: Db, changeRequestId: string, userId: string): Promise<void> {
  await db.insertInto('change_request_contributors')
    .values({ change_request_id: changeRequestId, user_id: userId })
    .onConflict((conflict) => conflict.columns(['change_request_id', 'user_id']).doNothing())
    .execute();
}

export async function listChangeRequestContributors(db: Db, changeRequestId: string): Promise<string[]> {
  const rows = await db.selectFrom('change_request_contributors').select('user_id').where('change_request_id', '=', changeRequestId).orderBy('user_id').execute();
  return rows.map((row) => row.user_id);
}

export interface ChangeRequestFilters {
  status: string;
  creator?: string;
  contributor?: string;
  requestedReviewer?: string;
  conversationsIssuesCluster?: string;
}

export type ChangeRequestScope =
  | { kind: 'space'; spaceId: string }
  | { kind: 'organization'; organizationId: string; viewer: ContentViewer };

type ListRow = ChangeRequestRow & {
  creator_email: string;
  creator_display_name: string;
  creator_photo_url: string | null;
  creator_created_at: string;
  main_revision_id: string;
  space_organization_id: string;
};

/** Most recently updated first; the id settles ties. */
const LIST_ORDER: KeysetOrder<ListRow> = {
  columns: ['cr.updated_at', 'cr.id'],
  keyOf: (row) => [row.updated_at, row.id],
  direction: 'desc',
};
export const CHANGE_REQUEST_ORDER_KEY_LENGTH = 2;

export async function listChangeRequests(
  db: Db,
  scope: ChangeRequestScope,
  filters: ChangeRequestFilters,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<ChangeRequestListing>> {
  let query = db
    .selectFrom('change_requests as cr')
    .innerJoin('spaces as s', 's.id', 'cr.space_id')
    .innerJoin('users as u', 'u.id', 'cr.created_by')
    .selectAll('cr')
    .select([
      ...userDetailColumns('u', 'creator'),
      's.revision_id as main_revision_id',
      's.organization_id as space_organization_id',
    ])
    .where('cr.status', '=', filters.status);
  if (scope.kind === 'space') {
    query = query.where('cr.space_id', '=', scope.spaceId);
  } else {
    // Through the space's current organization: a transferred space takes its requests along.
    query = query.where(sql<boolean>`s.organization_id = ${scope.organizationId} and s.deleted_at is null`);
    query = withContentAccess(query, { organizationId: scope.organizationId, content: { spaces: 's' }, viewers: [{ viewer: scope.viewer }] });
  }
  if (filters.creator !== undefined) query = query.where('cr.created_by', '=', filters.creator);
  if (filters.conversationsIssuesCluster !== undefined) query = query.where('cr.conversations_issues_cluster', '=', filters.conversationsIssuesCluster);
  if (filters.contributor !== undefined) {
    query = query.where(sql<boolean>`exists (select 1 from change_request_contributors c where c.change_request_id = cr.id and c.user_id = ${filters.contributor})`);
  }
  if (filters.requestedReviewer !== undefined) {
    query = query.where(sql<boolean>`exists (select 1 from change_request_reviewers r where r.change_request_id = cr.id and r.user_id = ${filters.requestedReviewer})`);
  }
  const page = await keysetPage(query, LIST_ORDER, after, limit);
  return {
    ...page,
    rows: page.rows.map(({ creator_email, creator_display_name, creator_photo_url, creator_created_at, main_revision_id, space_organization_id, ...changeRequest }) => ({
      changeRequest,
      creator: userFrom('creator', { creator_email, creator_display_name, creator_photo_url, creator_created_at }, changeRequest.created_by),
      mainRevisionId: main_revision_id,
      spaceOrganizationId: space_organization_id,
    })),
  };
}
