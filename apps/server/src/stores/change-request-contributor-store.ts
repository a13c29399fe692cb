import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import type { ChangeRequestRow } from './change-request-store.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { userColumns, userFrom } from './user-columns.js';
import type { UserRow } from './user-store.js';

/*
 * What people contributed to a change request, by person and kind, read from what they left:
 * - `edit`: the people in `change_request_contributors` (its creator and whoever wrote a revision of it); each
 *   counts creating it and each revision of it they wrote (edits, templates, updates from main; not the merge,
 *   which writes the main content);
 * - `comment`: each comment posted on it and each reply to one, by their authors.
 */

export type ContributionKind = 'edit' | 'comment';

export interface ContributionRecord {
  user: UserRow;
  kind: ContributionKind;
  count: number;
  /** When the last of these contributions was made. */
  lastAt: string;
}

interface ContributionRow {
  user_id: string;
  action_type: string;
  contributions: unknown;
  updated_at: string;
}

/** Latest contribution first; a person's two kinds, and people at the same instant, in a fixed order. */
const CONTRIBUTION_ORDER: KeysetOrder<ContributionRow> = {
  columns: ['x.updated_at', 'x.action_type', 'x.user_id'],
  keyOf: (row) => [row.updated_at, row.action_type, row.user_id],
  direction: 'desc',
};
export const CONTRIBUTION_ORDER_KEY_LENGTH = CONTRIBUTION_ORDER.columns.length;

export async function listChangeRequestContributions(
  db: Db,
  changeRequest: Pick<ChangeRequestRow, 'id' | 'created_by' | 'created_at'>,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<ContributionRecord>> {
  const id = changeRequest.id;
  const revisionsBy = sql`from revisions r where r.change_request_id = k.change_request_id and r.created_by = k.user_id and r.type <> 'merge'`;
  const edits = db
    .selectFrom('change_request_contributors as k')
    .where('k.change_request_id', '=', id)
    .select([
      'k.user_id as user_id',
      sql<string>`'edit'`.as('action_type'),
      sql<number>`(select count(*) ${revisionsBy}) + case when k.user_id = ${changeRequest.created_by} then 1 else 0 end`.as('contributions'),
      sql<string>`coalesce((select max(r.created_at) ${revisionsBy}), ${changeRequest.created_at})`.as('updated_at'),
    ]);
  const posts = db
    .selectFrom('comments as c')
    .select(['c.author_id as user_id', 'c.posted_at as posted_at'])
    .where('c.change_request_id', '=', id)
    .unionAll(db
      .selectFrom('comment_replies as r')
      .innerJoin('comments as rc', 'rc.id', 'r.comment_id')
      .select(['r.author_id as user_id', 'r.posted_at as posted_at'])
      .where('rc.change_request_id', '=', id));
  const comments = db
    .selectFrom(posts.as('p'))
    .select([
      'p.user_id as user_id',
      sql<string>`'comment'`.as('action_type'),
      sql<number>`count(*)`.as('contributions'),
      sql<string>`max(p.posted_at)`.as('updated_at'),
    ])
    .groupBy('p.user_id');
  const query = db
    .selectFrom(edits.unionAll(comments).as('x'))
    .innerJoin('users as u', 'u.id', 'x.user_id')
    .select(['x.user_id', 'x.action_type', 'x.contributions', 'x.updated_at', ...userColumns('u', 'user')]);
  const page = await keysetPage(query, CONTRIBUTION_ORDER, after, limit);
  return {
    ...page,
    rows: page.rows.map((row) => ({
      user: userFrom('user', row),
      kind: row.action_type as ContributionKind,
      count: toCount(row.contributions),
      lastAt: row.updated_at,
    })),
  };
}
