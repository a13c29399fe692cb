import type { components, JSONDocument } from '@quire/api-types';
import { ContentError, documentToMarkdown, markdownToDocument, parsesOffThread } from '../../content/index.js';
import { commentPermissions, commentReplyPermissions } from '../../policies/comment-policy.js';
import { canSeeMemberEmail } from '../../policies/member-policy.js';
import type { StoredBody } from '../../services/comment-body.js';
import type { CommentView, DiscussionViewer, ReplyView } from '../../services/comment-discussion.js';
import type { ReactionRecord, ReplierRecord } from '../../stores/comment-store.js';
import type { UserRow } from '../../stores/user-store.js';
import { apiUrl, type PresentContext } from './context.js';
import { presentUser, type ApiUser } from './user-presenter.js';

export type ApiComment = components['schemas']['Comment'];
export type ApiCommentReply = components['schemas']['CommentReply'];
export type ApiCommentBody = components['schemas']['CommentBody'];
type ApiReaction = components['schemas']['CommentReaction'];

/** The form of rich content asked for with `format`; undefined answers a body in the form it was written in. */
export type BodyFormat = 'markdown' | 'document' | undefined;

/**
 * A body in the asked form. Markdown turns into a document through the content core's parser, a document
 * into markdown through its serializer; content that comes out empty is answered as `{}`.
 */
export function presentCommentBody(stored: StoredBody, format: BodyFormat): ApiCommentBody {
  if (stored.body_format === 'empty') return {};
  if (stored.body_format === 'markdown') {
    if (format !== 'document') return { markdown: stored.body };
    // Presenting runs on the event loop, once per comment of a list: a body whose parse could take long (the
    // markdown worker's share: long, or dense with inline delimiters) is answered as written, as the body may
    // be in either form, so that no list of comments stalls the server.
    if (parsesOffThread(stored.body)) return { markdown: stored.body };
    try {
      return { document: markdownToDocument(stored.body) };
    } catch (error) {
      // Markdown stored before the content limits existed cannot become a document: it is answered as it
      // was written (the body is either form), rather than failing the comment, or the whole list.
      if (error instanceof ContentError) return { markdown: stored.body };
      throw error;
    }
  }
  const document = JSON.parse(stored.body) as JSONDocument;
  if (format !== 'markdown') return { document };
  const markdown = documentToMarkdown(document);
  return markdown.trim() === '' ? {} : { markdown };
}

function userFor(context: PresentContext, viewer: DiscussionViewer, user: UserRow): ApiUser {
  return presentUser(context, user, { withEmail: canSeeMemberEmail(viewer.membership, viewer.userId, user.id) });
}

/** One item per emoji, in the order the emojis were first used; people in the order they reacted. */
function presentReactions(context: PresentContext, viewer: DiscussionViewer, reactions: readonly ReactionRecord[]): ApiReaction[] {
  const byEmoji = new Map<string, ApiReaction['users'][number][]>();
  for (const reaction of reactions) {
    let users = byEmoji.get(reaction.emoji);
    if (!users) {
      users = [];
      byEmoji.set(reaction.emoji, users);
    }
    users.push({ user: userFor(context, viewer, reaction.user), reactedAt: reaction.reactedAt });
  }
  return [...byEmoji].map(([emoji, users]) => ({ emoji, count: users.length, users }));
}

function presentRepliers(context: PresentContext, viewer: DiscussionViewer, repliers: readonly ReplierRecord[]): ApiComment['repliers'] {
  return repliers.map((replier) => ({ updatedAt: replier.lastRepliedAt, count: replier.count, user: userFor(context, viewer, replier.user) }));
}

function commentPath(spaceId: string, commentId: string): string {
  return `/spaces/${encodeURIComponent(spaceId)}/comments/${encodeURIComponent(commentId)}`;
}

export function presentComment(context: PresentContext, viewer: DiscussionViewer, view: CommentView, format: BodyFormat): ApiComment {
  const row = view.comment;
  const target: ApiComment['target'] = {
    space: row.space_id,
    revision: row.revision_id,
    ...(row.page_id !== null ? { page: { id: row.page_id } } : {}),
    ...(row.node_id !== null ? { node: { id: row.node_id } } : {}),
    ...(row.table_record !== null && row.table_definition !== null ? { tableCell: { record: row.table_record, definition: row.table_definition } } : {}),
    ...(row.change_request_id !== null ? { changeRequest: row.change_request_id } : {}),
    ...(row.review_id !== null ? { review: row.review_id } : {}),
  };
  const common = {
    object: 'comment' as const,
    id: row.id,
    postedBy: userFor(context, viewer, view.author),
    postedAt: row.posted_at,
    ...(row.edited_at !== null ? { editedAt: row.edited_at } : {}),
    reactions: presentReactions(context, viewer, view.reactions),
    replies: view.repliers.reduce((sum, replier) => sum + replier.count, 0),
    repliers: presentRepliers(context, viewer, view.repliers),
    body: presentCommentBody(row, format),
    target,
    urls: { location: apiUrl(context, commentPath(row.space_id, row.id)) },
    permissions: commentPermissions(viewer, row.author_id),
  };
  if (row.status === 'resolved' && row.resolved_at !== null && view.resolver) {
    return { ...common, status: 'resolved', resolvedAt: row.resolved_at, resolvedBy: userFor(context, viewer, view.resolver) };
  }
  return { ...common, status: 'open' };
}

export function presentCommentReply(context: PresentContext, viewer: DiscussionViewer, spaceId: string, view: ReplyView, format: BodyFormat): ApiCommentReply {
  const row = view.reply;
  return {
    object: 'comment-reply',
    id: row.id,
    postedBy: userFor(context, viewer, view.author),
    postedAt: row.posted_at,
    ...(row.edited_at !== null ? { editedAt: row.edited_at } : {}),
    reactions: presentReactions(context, viewer, view.reactions),
    body: presentCommentBody(row, format),
    urls: { location: apiUrl(context, `${commentPath(spaceId, row.comment_id)}/replies/${encodeURIComponent(row.id)}`) },
    permissions: commentReplyPermissions(viewer, row.author_id),
  };
}
