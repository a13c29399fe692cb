import type { Selectable, Updateable } from 'kysely';
import type { Db, DialectName } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import type { CommentReactionsTable, CommentRepliesTable, CommentsTable } from '../db/schema.js';
import { chunks } from './collection-store.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { selectMemberDetails, withTeamCount, type MemberRecord } from './member-store.js';
import { userColumns, userDetailColumns, userFrom } from './user-columns.js';
import type { UserRow } from './user-store.js';

/** Comments of spaces, their replies and the reactions on both (0050). */

export type CommentRow = Selectable<CommentsTable>;
export type CommentReplyRow = Selectable<CommentRepliesTable>;
export type CommentReactionRow = Selectable<CommentReactionsTable>;

/** A comment with the people it names. */
export interface CommentRecord {
  comment: CommentRow;
  author: UserRow;
  /** Who resolved it, while it is resolved. */
  resolver: UserRow | undefined;
}

export interface CommentReplyRecord {
  reply: CommentReplyRow;
  author: UserRow;
}

export interface ReactionRecord {
  subjectId: string;
  emoji: string;
  user: UserRow;
  reactedAt: string;
}

/** One person's replies to one comment. */
export interface ReplierRecord {
  commentId: string;
  user: UserRow;
  count: number;
  lastRepliedAt: string;
}

function selectComments(db: Db) {
  return db
    .selectFrom('comments as c')
    .innerJoin('users as au', 'au.id', 'c.author_id')
    .leftJoin('users as ru', 'ru.id', 'c.resolved_by')
    .selectAll('c')
    // The author's id is the comment's own `author_id`.
    .select([...userDetailColumns('au', 'author'), ...userColumns('ru', 'resolver')]);
}

type SelectedComment = Awaited<ReturnType<ReturnType<typeof selectComments>['execute']>>[number];

function toCommentRecord(row: SelectedComment): CommentRecord {
  const {
    author_email, author_display_name, author_photo_url, author_created_at,
    resolver_id, resolver_email, resolver_display_name, resolver_photo_url, resolver_created_at,
    ...comment
  } = row;
  return {
    comment,
    author: userFrom('author', row),
    resolver: resolver_id === null ? undefined : userFrom('resolver', row),
  };
}

export async function insertComment(db: Db, row: CommentRow): Promise<void> {
  await db.insertInto('comments').values(row).execute();
}

/**
 * Holds the comment's row for the rest of the transaction, so that two requests changing its status (or
 * deleting it) one after the other each see what the other did and the counters move once. SQLite
 * transactions already hold the only write lock (they begin immediate).
 */
export async function lockComment(db: Db, dialect: DialectName, commentId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('comments').select('id').where('id', '=', commentId).forUpdate().execute();
}

export async function findComment(db: Db, spaceId: string, commentId: string): Promise<CommentRecord | undefined> {
  const row = await selectComments(db).where('c.space_id', '=', spaceId).where('c.id', '=', commentId).executeTakeFirst();
  return row ? toCommentRecord(row) : undefined;
}

export async function findCommentsByIds(db: Db, spaceId: string, commentIds: readonly string[]): Promise<CommentRecord[]> {
  if (commentIds.length === 0) return [];
  const rows = await selectComments(db).where('c.space_id', '=', spaceId).where('c.id', 'in', [...commentIds]).execute();
  return rows.map(toCommentRecord);
}

export async function updateComment(db: Db, commentId: string, patch: Updateable<CommentsTable>): Promise<void> {
  await db.updateTable('comments').set(patch).where('id', '=', commentId).execute();
}

/** Deletes the comment; its replies and reactions go with it (foreign key cascade). */
export async function deleteComment(db: Db, commentId: string): Promise<void> {
  await db.deleteFrom('comments').where('id', '=', commentId).execute();
}

export interface CommentListFilter {
  /** Only the comments posted on this change request. */
  changeRequestId?: string;
  status?: 'open' | 'resolved';
  pageId?: string;
  authorIds?: readonly string[];
}

const COMMENT_ORDER = { columns: ['c.posted_at', 'c.id'], keyOf: (row: SelectedComment) => [row.posted_at, row.id] } as const;
export const COMMENT_ORDER_KEY_LENGTH = COMMENT_ORDER.columns.length;

export async function listComments(
  db: Db,
  spaceId: string,
  filter: CommentListFilter,
  direction: 'asc' | 'desc',
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<CommentRecord>> {
  let query = selectComments(db).where('c.space_id', '=', spaceId);
  if (filter.changeRequestId !== undefined) query = query.where('c.change_request_id', '=', filter.changeRequestId);
  if (filter.status !== undefined) query = query.where('c.status', '=', filter.status);
  if (filter.pageId !== undefined) query = query.where('c.page_id', '=', filter.pageId);
  if (filter.authorIds !== undefined) query = query.where('c.author_id', 'in', [...filter.authorIds]);
  const order: KeysetOrder<SelectedComment> = { ...COMMENT_ORDER, direction };
  const page = await keysetPage(query, order, after, limit);
  return { ...page, rows: page.rows.map(toCommentRecord) };
}

// ----- replies -----

function selectReplies(db: Db) {
  return db
    .selectFrom('comment_replies as r')
    .innerJoin('users as au', 'au.id', 'r.author_id')
    .selectAll('r')
    .select(userDetailColumns('au', 'author'));
}

type SelectedReply = Awaited<ReturnType<ReturnType<typeof selectReplies>['execute']>>[number];

function toReplyRecord(row: SelectedReply): CommentReplyRecord {
  const { author_email, author_display_name, author_photo_url, author_created_at, ...reply } = row;
  return { reply, author: userFrom('author', row) };
}

export async function insertReply(db: Db, row: CommentReplyRow): Promise<void> {
  await db.insertInto('comment_replies').values(row).execute();
}

export async function findReply(db: Db, commentId: string, replyId: string): Promise<CommentReplyRecord | undefined> {
  const row = await selectReplies(db).where('r.comment_id', '=', commentId).where('r.id', '=', replyId).executeTakeFirst();
  return row ? toReplyRecord(row) : undefined;
}

export async function updateReply(db: Db, replyId: string, patch: Updateable<CommentRepliesTable>): Promise<void> {
  await db.updateTable('comment_replies').set(patch).where('id', '=', replyId).execute();
}

export async function deleteReply(db: Db, replyId: string): Promise<void> {
  await db.deleteFrom('comment_replies').where('id', '=', replyId).execute();
}

const REPLY_ORDER: KeysetOrder<SelectedReply> = { columns: ['r.posted_at', 'r.id'], keyOf: (row) => [row.posted_at, row.id] };
export const REPLY_ORDER_KEY_LENGTH = REPLY_ORDER.columns.length;

export async function listReplies(
  db: Db,
  commentId: string,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<CommentReplyRecord>> {
  const page = await keysetPage(selectReplies(db).where('r.comment_id', '=', commentId), REPLY_ORDER, after, limit);
  return { ...page, rows: page.rows.map(toReplyRecord) };
}

/** Per comment and person: how many replies they posted and when they last did, oldest last reply first. */
export async function findRepliers(db: Db, commentIds: readonly string[]): Promise<ReplierRecord[]> {
  const found: ReplierRecord[] = [];
  for (const chunk of chunks(commentIds)) {
    const rows = await db
      .selectFrom('comment_replies as r')
      .innerJoin('users as u', 'u.id', 'r.author_id')
      .select(['r.comment_id', ...userColumns('u', 'user')])
      .select((eb) => [eb.fn.countAll().as('count'), eb.fn.max('r.posted_at').as('last_replied_at')])
      .where('r.comment_id', 'in', chunk)
      .groupBy(['r.comment_id', 'u.id', 'u.email', 'u.display_name', 'u.photo_url', 'u.created_at'])
      .execute();
    for (const row of rows) {
      found.push({
        commentId: row.comment_id,
        user: userFrom('user', row),
        count: toCount(row.count),
        lastRepliedAt: String(row.last_replied_at),
      });
    }
  }
  return found.sort((a, b) => (a.lastRepliedAt < b.lastRepliedAt ? -1 : a.lastRepliedAt > b.lastRepliedAt ? 1 : a.user.id < b.user.id ? -1 : 1));
}

// ----- reactions -----

/** Adds reactions; one a person already has with that emoji is left as it is (with its first date). */
export async function addReactions(db: Db, rows: readonly CommentReactionRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('comment_reactions').values([...rows])
    .onConflict((conflict) => conflict.columns(['subject_id', 'emoji', 'user_id']).doNothing())
    .execute();
}

export async function removeReactions(db: Db, subjectId: string, userId: string, emojis: readonly string[]): Promise<void> {
  if (emojis.length === 0) return;
  await db.deleteFrom('comment_reactions')
    .where('subject_id', '=', subjectId).where('user_id', '=', userId).where('emoji', 'in', [...emojis])
    .execute();
}

/** The reactions on these comments or replies, in the order they were made. */
export async function findReactions(db: Db, subjectIds: readonly string[]): Promise<ReactionRecord[]> {
  const found: ReactionRecord[] = [];
  for (const chunk of chunks(subjectIds)) {
    const rows = await db
      .selectFrom('comment_reactions as x')
      .innerJoin('users as u', 'u.id', 'x.user_id')
      .select(['x.subject_id', 'x.emoji', 'x.reacted_at', ...userColumns('u', 'user')])
      .where('x.subject_id', 'in', chunk)
      .execute();
    for (const row of rows) {
      found.push({ subjectId: row.subject_id, emoji: row.emoji, reactedAt: row.reacted_at, user: userFrom('user', row) });
    }
  }
  // Sorted here rather than in SQL: emojis are compared by code point, whatever the database's collation.
  return found.sort((a, b) => (a.reactedAt < b.reactedAt ? -1 : a.reactedAt > b.reactedAt ? 1 : a.emoji < b.emoji ? -1 : a.emoji > b.emoji ? 1 : a.user.id < b.user.id ? -1 : 1));
}

// ----- commenters -----

const COMMENTER_ORDER: KeysetOrder<{ user_id: string }> = { columns: ['m.user_id'], keyOf: (row) => [row.user_id] };
export const COMMENTER_ORDER_KEY_LENGTH = COMMENTER_ORDER.columns.length;

/** Members of the organization who posted a comment or a reply in the space (on the change request, when given), each once. */
export async function listCommenters(
  db: Db,
  organizationId: string,
  scope: { spaceId: string; changeRequestId?: string | undefined },
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<MemberRecord>> {
  const { spaceId, changeRequestId } = scope;
  const query = selectMemberDetails(db)
    .where('m.organization_id', '=', organizationId)
    .where((eb) => {
      let comments = eb.selectFrom('comments').select('comments.author_id').where('comments.space_id', '=', spaceId);
      let replies = eb.selectFrom('comment_replies').select('comment_replies.author_id').where('comment_replies.space_id', '=', spaceId);
      if (changeRequestId !== undefined) {
        comments = comments.where('comments.change_request_id', '=', changeRequestId);
        replies = replies.where('comment_replies.comment_id', 'in', eb.selectFrom('comments as rc').select('rc.id').where('rc.change_request_id', '=', changeRequestId));
      }
      return eb.or([eb('m.user_id', 'in', comments), eb('m.user_id', 'in', replies)]);
    });
  const page = await keysetPage(query, COMMENTER_ORDER, after, limit);
  return { ...page, rows: page.rows.map(withTeamCount) };
}

// ----- counters of change requests -----

/**
 * Moves the open-comment count of a change request, in the transaction that opens or closes a comment on
 * it (the comment service owns this column of `change_requests`). An increment in SQL keeps concurrent
 * writers from losing updates.
 */
export async function adjustChangeRequestOpenComments(db: Db, changeRequestId: string, delta: number): Promise<void> {
  if (delta === 0) return;
  await db.updateTable('change_requests')
    .set((eb) => ({ comments_count: eb('comments_count', '+', delta) }))
    .where('id', '=', changeRequestId)
    .execute();
}
