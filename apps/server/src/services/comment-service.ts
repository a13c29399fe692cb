import type { components, JSONDocument } from '@quire/api-types';
import { checkMarkdownLimitsOffThread, ContentError, documentToMarkdown, markdownToDocumentOffThread, type DocNode } from '../content/index.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { newId, nowIso } from '../ids.js';
import { canComment, canDelete, canEditBody, type CommentViewer } from '../policies/comment-policy.js';
import type { MemberViewer } from '../policies/member-policy.js';
import type { OrganizationMembership } from '../policies/organization-policy.js';
import {
  addReactions,
  adjustChangeRequestOpenComments,
  COMMENT_ORDER_KEY_LENGTH,
  COMMENTER_ORDER_KEY_LENGTH,
  deleteComment,
  deleteReply,
  findComment,
  findCommentsByIds,
  findReactions,
  findRepliers,
  findReply,
  insertComment,
  insertReply,
  listCommenters,
  listComments,
  listReplies,
  lockComment,
  removeReactions,
  REPLY_ORDER_KEY_LENGTH,
  updateComment,
  updateReply,
  type CommentReactionRow,
  type CommentRecord,
  type CommentReplyRecord,
  type CommentRow,
  type ReactionRecord,
  type ReplierRecord,
} from '../stores/comment-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { MemberDetailRow } from '../stores/member-store.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import { adjustSpaceCounters } from '../stores/space-store.js';
import type { Caller } from './caller.js';
import { requireChangeRequest } from './change-request-service.js';
import type { ServiceContext } from './context.js';
import { loadRevisionContent, readPageMarkdown } from './revision-content.js';
import { withSpaceCounts } from './member-service.js';
import { assertSpacePermission, requireSpace, type SpaceAccess } from './space-service.js';

type CommentBody = components['schemas']['CommentBody'];
type StoredBodyFormat = CommentRow['body_format'];

/*
 * Discussions of a space. The open-comment counters (`comments` of the space, and of the change request a
 * comment is on) move in the same transaction as every write that opens or closes a comment: posting,
 * resolving, reopening, deleting. Each of those holds the comment's row first, so that two requests on
 * the same comment run one after the other and the counters move once per real change.
 *
 * The space counter counts every open comment of the space, those on its change requests included, exactly
 * the comments that `listCommentsInSpace` answers with `status=open`.
 */

/** Who is looking, with what decides what they may see of other people (e-mail addresses) and do. */
export interface DiscussionViewer extends CommentViewer {
  membership: OrganizationMembership | undefined;
}

/** A comment with everything its API object shows. */
export interface CommentView extends CommentRecord {
  reactions: ReactionRecord[];
  repliers: ReplierRecord[];
}

export interface ReplyView extends CommentReplyRecord {
  reactions: ReactionRecord[];
}

export interface StoredBody {
  body_format: StoredBodyFormat;
  body: string;
}

/** The caller as the discussions of a space they reached see them. */
export function viewerOf(caller: Caller, access: SpaceAccess): DiscussionViewer {
  return { userId: caller.user.id, role: access.role, state: access.state, membership: access.membership };
}

function commentNotFound(): NotFoundError {
  return new NotFoundError('No comment of this space matches this id');
}

function replyNotFound(): NotFoundError {
  return new NotFoundError('No reply to this comment matches this id');
}

const COMMENT_REFUSED = 'You need the comment permission of this space';

/** Refuses, with a 400 naming the limit, a body that passes a content limit (see content/markdown/limits.ts). */
async function withinContentLimits(markdown: string, field: string): Promise<void> {
  try {
    await checkMarkdownLimitsOffThread(markdown, field);
  } catch (error) {
    if (error instanceof ContentError) throw new BadRequestError(error.message);
    throw error;
  }
}

/**
 * The body as stored: the form it was written in. A document is checked to convert to markdown now, so that
 * answering it in either form can never fail later. A body with no content at all is stored as empty.
 */
export async function storedBody(input: CommentBody, field: string): Promise<StoredBody> {
  if ('markdown' in input && typeof input.markdown === 'string') {
    if (input.markdown.trim() === '') return { body_format: 'empty', body: '' };
    await withinContentLimits(input.markdown, `${field}.markdown`);
    return { body_format: 'markdown', body: input.markdown };
  }
  if ('document' in input && input.document) {
    const document = input.document as JSONDocument;
    if (document.nodes.length === 0) return { body_format: 'empty', body: '' };
    let markdown: string;
    try {
      markdown = documentToMarkdown(document);
    } catch {
      throw new BadRequestError(`${field}.document cannot be read as a document`);
    }
    // Read back as markdown, it must be content that can be stored.
    await withinContentLimits(markdown, `${field}.document`);
    return { body_format: 'document', body: JSON.stringify(document) };
  }
  return { body_format: 'empty', body: '' };
}

async function commentViews(context: ServiceContext, records: readonly CommentRecord[]): Promise<CommentView[]> {
  if (records.length === 0) return [];
  const ids = records.map((record) => record.comment.id);
  const [reactions, repliers] = await Promise.all([findReactions(context.db, ids), findRepliers(context.db, ids)]);
  return records.map((record) => ({
    ...record,
    reactions: reactions.filter((reaction) => reaction.subjectId === record.comment.id),
    repliers: repliers.filter((replier) => replier.commentId === record.comment.id),
  }));
}

async function replyViews(context: ServiceContext, records: readonly CommentReplyRecord[]): Promise<ReplyView[]> {
  if (records.length === 0) return [];
  const reactions = await findReactions(context.db, records.map((record) => record.reply.id));
  return records.map((record) => ({ ...record, reactions: reactions.filter((reaction) => reaction.subjectId === record.reply.id) }));
}

async function requireComment(context: ServiceContext, spaceId: string, commentId: string): Promise<CommentRecord> {
  const record = await findComment(context.db, spaceId, commentId);
  if (!record) throw commentNotFound();
  return record;
}

/** Moves the open-comment counters of the comment's space and change request by `delta`. */
async function countOpenComments(context: ServiceContext, comment: Pick<CommentRow, 'space_id' | 'change_request_id'>, delta: number): Promise<void> {
  // The change request's row first, then the space's: the order in which the change request service
  // takes them, so that the two never wait for each other in opposite orders.
  if (comment.change_request_id !== null) await adjustChangeRequestOpenComments(context.db, comment.change_request_id, delta);
  await adjustSpaceCounters(context.db, comment.space_id, { comments: delta });
}

// ----- reading -----

export interface CommentListQuery {
  page?: string;
  limit?: number;
  order?: 'asc' | 'desc';
  status?: 'all' | 'open' | 'resolved';
  targetPage?: string;
  authors?: string[];
}

export async function listCommentsInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  query: CommentListQuery,
): Promise<{ viewer: DiscussionViewer; page: KeysetPage<CommentView> }> {
  const { after, limit } = pageRequest(query, COMMENT_ORDER_KEY_LENGTH);
  const access = await requireSpace(context, caller, spaceId);
  const status = query.status ?? 'all';
  const page = await listComments(context.db, spaceId, {
    ...(status !== 'all' ? { status } : {}),
    ...(query.targetPage !== undefined ? { pageId: query.targetPage } : {}),
    ...(query.authors !== undefined ? { authorIds: query.authors } : {}),
  }, query.order ?? 'desc', after, limit);
  return { viewer: viewerOf(caller, access), page: { ...page, rows: await commentViews(context, page.rows) } };
}

export async function getCommentInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string): Promise<{ viewer: DiscussionViewer; comment: CommentView }> {
  const access = await requireSpace(context, caller, spaceId);
  const [comment] = await commentViews(context, [await requireComment(context, spaceId, commentId)]);
  return { viewer: viewerOf(caller, access), comment: comment! };
}

export async function listCommentRepliesInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  commentId: string,
  query: { page?: string; limit?: number },
): Promise<{ viewer: DiscussionViewer; page: KeysetPage<ReplyView> }> {
  const { after, limit } = pageRequest(query, REPLY_ORDER_KEY_LENGTH);
  const access = await requireSpace(context, caller, spaceId);
  await requireComment(context, spaceId, commentId);
  const page = await listReplies(context.db, commentId, after, limit);
  return { viewer: viewerOf(caller, access), page: { ...page, rows: await replyViews(context, page.rows) } };
}

export async function getCommentReplyInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  commentId: string,
  replyId: string,
): Promise<{ viewer: DiscussionViewer; reply: ReplyView }> {
  const access = await requireSpace(context, caller, spaceId);
  await requireComment(context, spaceId, commentId);
  const record = await findReply(context.db, commentId, replyId);
  if (!record) throw replyNotFound();
  const [reply] = await replyViews(context, [record]);
  return { viewer: viewerOf(caller, access), reply: reply! };
}

export async function listCommentersInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  query: { page?: string; limit?: number },
): Promise<{ viewer: MemberViewer; page: KeysetPage<MemberDetailRow> }> {
  const { after, limit } = pageRequest(query, COMMENTER_ORDER_KEY_LENGTH);
  const access = await requireSpace(context, caller, spaceId);
  const organizationId = access.space.organization_id;
  const page = await listCommenters(context.db, organizationId, spaceId, after, limit);
  // requireSpace answered, so the caller is an active member of the space's organization.
  const viewer: MemberViewer = { userId: caller.user.id, membership: access.membership! };
  return { viewer, page: { ...page, rows: await withSpaceCounts(context.db, organizationId, page.rows) } };
}

// ----- posting -----

export interface PostCommentInput {
  body: CommentBody;
  page?: string;
  node?: string;
  tableCell?: { record: string; definition: string };
  changeRequest?: string;
}

/** Where a new comment goes: the revision it is posted on and the change request, if any. */
interface CommentPlace {
  revisionId: string;
  changeRequestId: string | null;
}

async function placeOfComment(context: ServiceContext, caller: Caller, access: SpaceAccess, input: PostCommentInput): Promise<CommentPlace> {
  if (input.changeRequest === undefined) return { revisionId: access.space.revision_id, changeRequestId: null };
  try {
    const { changeRequest } = await requireChangeRequest(context, caller, access.space.id, input.changeRequest);
    return { revisionId: changeRequest.revision_id, changeRequestId: changeRequest.id };
  } catch (error) {
    // The change request is named in the body, not the path: one the space lacks is a bad request.
    if (error instanceof NotFoundError) throw new BadRequestError('No change request of this space matches body.changeRequest');
    throw error;
  }
}

function findBlock(nodes: readonly DocNode[], key: string): DocNode | undefined {
  for (const node of nodes) {
    if (node.object === 'text') continue;
    if (node.object === 'block' && node.key === key) return node;
    const inside = findBlock(node.nodes, key);
    if (inside) return inside;
  }
  return undefined;
}

/**
 * Checks that the page, block and table cell a comment is attached to exist in the revision it is posted on.
 * Blocks are named by their `key` in the page's document; a table cell by the ids of its row (`record`, a key
 * of the table's `data.records`) and of its column (`definition`, a key of its `data.definition`).
 */
async function checkAttachment(context: ServiceContext, spaceId: string, revisionId: string, input: PostCommentInput): Promise<void> {
  if (input.page === undefined) return;
  const revision = await findRevisionOfSpace(context.db, spaceId, revisionId);
  if (!revision) throw new Error(`space ${spaceId} has no revision ${revisionId}`);
  const page = (await loadRevisionContent(context.db, revision.root)).pages.get(input.page)?.page;
  if (!page) throw new BadRequestError('No page of the space matches body.page');
  if (input.node === undefined) return;
  let document;
  try {
    document = await markdownToDocumentOffThread(await readPageMarkdown(context.db, page), { what: "the page's markdown" });
  } catch (error) {
    // Stored before the content limits existed: the page has no blocks to name.
    if (error instanceof ContentError) throw new BadRequestError(`body.node: ${error.message}, so its blocks cannot be commented on`);
    throw error;
  }
  const block = findBlock(document.nodes, input.node);
  if (!block || block.object === 'text') throw new BadRequestError('No block of the page matches body.node');
  if (input.tableCell === undefined) return;
  if (block.type !== 'table') throw new BadRequestError('body.tableCell needs body.node to be a table block');
  if (!Object.hasOwn(block.data.records, input.tableCell.record)) throw new BadRequestError('No row of the table matches body.tableCell.record');
  if (!Object.hasOwn(block.data.definition, input.tableCell.definition)) throw new BadRequestError('No column of the table matches body.tableCell.definition');
}

export async function postCommentInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  input: PostCommentInput,
): Promise<{ viewer: DiscussionViewer; comment: CommentView }> {
  const body = await storedBody(input.body, 'body.body');
  const access = await requireSpace(context, caller, spaceId);
  assertSpacePermission(access, 'comment');
  // Revisions are immutable: what is checked here stays true, so the checks run before the transaction.
  const place = await placeOfComment(context, caller, access, input);
  await checkAttachment(context, spaceId, place.revisionId, input);
  const comment: CommentRow = {
    id: newId(),
    space_id: spaceId,
    change_request_id: place.changeRequestId,
    revision_id: place.revisionId,
    page_id: input.page ?? null,
    node_id: input.node ?? null,
    table_record: input.tableCell?.record ?? null,
    table_definition: input.tableCell?.definition ?? null,
    author_id: caller.user.id,
    ...body,
    status: 'open',
    resolved_at: null,
    resolved_by: null,
    posted_at: nowIso(),
    edited_at: null,
    review_id: null,
  };
  const record = await context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    await insertComment(trx, comment);
    await countOpenComments(tx, comment, 1);
    return requireComment(tx, spaceId, comment.id);
  });
  return { viewer: viewerOf(caller, access), comment: { ...record, reactions: [], repliers: [] } };
}

/** What a change request review's comment is posted on: the review, its change request and revision. */
export interface ReviewCommentPlace {
  reviewId: string;
  spaceId: string;
  changeRequestId: string;
  revisionId: string;
  authorId: string;
  postedAt: string;
}

/**
 * Posts the comment written with a review (its body already through `storedBody`) as a discussion comment of
 * the change request, in the review's transaction (which holds the change request's row already), and moves
 * the open-comment counters like any posted comment. Answers the comment's id.
 */
export async function postReviewComment(tx: ServiceContext, place: ReviewCommentPlace, body: StoredBody): Promise<string> {
  const comment: CommentRow = {
    id: newId(), space_id: place.spaceId, change_request_id: place.changeRequestId, review_id: place.reviewId, revision_id: place.revisionId,
    page_id: null, node_id: null, table_record: null, table_definition: null, author_id: place.authorId, ...body,
    status: 'open', resolved_at: null, resolved_by: null, posted_at: place.postedAt, edited_at: null,
  };
  await insertComment(tx.db, comment);
  await countOpenComments(tx, comment, 1);
  return comment.id;
}

/** The comments of the space with these ids, with everything their API objects show, by id (deleted ones are absent). */
export async function commentViewsByIds(context: ServiceContext, spaceId: string, commentIds: readonly string[]): Promise<Map<string, CommentView>> {
  if (commentIds.length === 0) return new Map();
  const views = await commentViews(context, await findCommentsByIds(context.db, spaceId, commentIds));
  return new Map(views.map((view) => [view.comment.id, view]));
}

export async function postCommentReplyInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  commentId: string,
  input: { body: CommentBody },
): Promise<{ viewer: DiscussionViewer; reply: ReplyView }> {
  const body = await storedBody(input.body, 'body.body');
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await requireSpace(tx, caller, spaceId);
    assertSpacePermission(access, 'comment');
    // Held so that the comment cannot be deleted between the check and the insert.
    await lockComment(trx, context.dialect, commentId);
    await requireComment(tx, spaceId, commentId);
    const replyId = newId();
    await insertReply(trx, { id: replyId, comment_id: commentId, space_id: spaceId, author_id: caller.user.id, ...body, posted_at: nowIso(), edited_at: null });
    const record = await findReply(trx, commentId, replyId);
    return { viewer: viewerOf(caller, access), reply: { ...record!, reactions: [] } };
  });
}

// ----- changing -----

export interface ReactionChanges {
  addedReactions?: string[];
  removedReactions?: string[];
}

/** Applies the caller's reaction changes to a comment or a reply; an emoji in both lists is removed. */
async function applyReactions(context: ServiceContext, target: { commentId: string; replyId: string | null }, userId: string, changes: ReactionChanges): Promise<void> {
  const removed = [...new Set(changes.removedReactions ?? [])];
  const added = [...new Set(changes.addedReactions ?? [])].filter((emoji) => !removed.includes(emoji));
  const subjectId = target.replyId ?? target.commentId;
  await removeReactions(context.db, subjectId, userId, removed);
  const now = nowIso();
  const rows: CommentReactionRow[] = added.map((emoji) => ({
    subject_id: subjectId, comment_id: target.commentId, reply_id: target.replyId, emoji, user_id: userId, reacted_at: now,
  }));
  await addReactions(context.db, rows);
}

function bodyRefusal(viewer: DiscussionViewer, authorId: string, what: 'comment' | 'reply'): ForbiddenError {
  return new ForbiddenError(viewer.userId === authorId ? COMMENT_REFUSED : `Only the author of a ${what} can change its body`);
}

function reactsOrResolves(input: ReactionChanges & { resolved?: boolean }): boolean {
  return input.resolved !== undefined || input.addedReactions !== undefined || input.removedReactions !== undefined;
}

export async function updateCommentInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  commentId: string,
  input: ReactionChanges & { resolved?: boolean; body?: CommentBody },
): Promise<{ viewer: DiscussionViewer; comment: CommentView }> {
  const body = input.body === undefined ? undefined : await storedBody(input.body, 'body.body');
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await requireSpace(tx, caller, spaceId);
    const viewer = viewerOf(caller, access);
    await lockComment(trx, context.dialect, commentId);
    const { comment } = await requireComment(tx, spaceId, commentId);
    if (body !== undefined && !canEditBody(viewer, comment.author_id)) throw bodyRefusal(viewer, comment.author_id, 'comment');
    if (reactsOrResolves(input) && !canComment(viewer)) throw new ForbiddenError(COMMENT_REFUSED);

    const now = nowIso();
    const patch: Partial<CommentRow> = {};
    if (body !== undefined) Object.assign(patch, body, { edited_at: now });
    if (input.resolved === true && comment.status === 'open') {
      Object.assign(patch, { status: 'resolved', resolved_at: now, resolved_by: caller.user.id });
      await countOpenComments(tx, comment, -1);
    } else if (input.resolved === false && comment.status === 'resolved') {
      Object.assign(patch, { status: 'open', resolved_at: null, resolved_by: null });
      await countOpenComments(tx, comment, 1);
    }
    if (Object.keys(patch).length > 0) await updateComment(trx, commentId, patch);
    await applyReactions(tx, { commentId, replyId: null }, caller.user.id, input);
    const [view] = await commentViews(tx, [await requireComment(tx, spaceId, commentId)]);
    return { viewer, comment: view! };
  });
}

export async function updateCommentReplyInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  commentId: string,
  replyId: string,
  input: ReactionChanges & { body?: CommentBody },
): Promise<{ viewer: DiscussionViewer; reply: ReplyView }> {
  const body = input.body === undefined ? undefined : await storedBody(input.body, 'body.body');
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await requireSpace(tx, caller, spaceId);
    const viewer = viewerOf(caller, access);
    // The comment's row is held so that deleting it (and the reply with it) waits for this change.
    await lockComment(trx, context.dialect, commentId);
    await requireComment(tx, spaceId, commentId);
    const found = await findReply(trx, commentId, replyId);
    if (!found) throw replyNotFound();
    if (body !== undefined && !canEditBody(viewer, found.reply.author_id)) throw bodyRefusal(viewer, found.reply.author_id, 'reply');
    if (reactsOrResolves(input) && !canComment(viewer)) throw new ForbiddenError(COMMENT_REFUSED);
    if (body !== undefined) await updateReply(trx, replyId, { ...body, edited_at: nowIso() });
    await applyReactions(tx, { commentId, replyId }, caller.user.id, input);
    const [view] = await replyViews(tx, [(await findReply(trx, commentId, replyId))!]);
    return { viewer, reply: view! };
  });
}

// ----- deleting -----

/** Deletes a comment and its replies; an absent comment is already deleted. */
export async function deleteCommentInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string): Promise<void> {
  await context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await requireSpace(tx, caller, spaceId);
    await lockComment(trx, context.dialect, commentId);
    const found = await findComment(trx, spaceId, commentId);
    if (!found) return;
    if (!canDelete(viewerOf(caller, access), found.comment.author_id)) throw new ForbiddenError('Only the author of a comment or an admin of the space can delete it');
    await deleteComment(trx, commentId);
    if (found.comment.status === 'open') await countOpenComments(tx, found.comment, -1);
  });
}

/** Deletes a reply; an absent reply is already deleted, but the comment must be one of the space's. */
export async function deleteCommentReplyInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string, replyId: string): Promise<void> {
  await context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await requireSpace(tx, caller, spaceId);
    await lockComment(trx, context.dialect, commentId);
    await requireComment(tx, spaceId, commentId);
    const found = await findReply(trx, commentId, replyId);
    if (!found) return;
    if (!canDelete(viewerOf(caller, access), found.reply.author_id)) throw new ForbiddenError('Only the author of a reply or an admin of the space can delete it');
    await deleteReply(trx, replyId);
  });
}
