import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { renderMarkdown } from '@quire/render';
import { useId, useMemo, useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { commentsApi, type Comment, type CommentReply, type CommentScope, type CommentsApi } from './commentsApi.js';

/*
 * The discussions of a change request or of a space: list, post (on the whole or on the page open), reply,
 * resolve and open again, edit and delete one's own. Bodies are Markdown rendered by @quire/render (raw HTML
 * dropped, sanitized), never executed; names are React text.
 */

/** `titleOf` names the page a comment is about (from the content shown), so the list says which one. */
export function CommentsPanel({ scope, page, titleOf }: { scope: CommentScope; page?: { id: string; title: string }; titleOf?: (pageId: string) => string | undefined }) {
  const comments = useMemo(() => commentsApi(scope), [scope.kind, scope.spaceId, scope.kind === 'change-request' ? scope.changeRequestId : '']);
  const list = useQuery({ queryKey: comments.key, queryFn: () => comments.list() });
  const [showResolved, setShowResolved] = useState(false);
  const open = (list.data ?? []).filter((comment) => comment.status === 'open');
  const shown = showResolved ? (list.data ?? []) : open;
  const resolvedCount = (list.data?.length ?? 0) - open.length;

  return (
    <section aria-labelledby="comments-title" className="comments">
      <h2 id="comments-title">Comments</h2>
      {list.isPending ? <Loading label="Loading the comments" /> : null}
      {list.isError ? <ErrorNotice title="The comments could not be loaded" error={list.error} /> : null}
      {list.isSuccess && shown.length === 0 ? <p>No open comments.</p> : null}
      {shown.map((comment) => (
        <CommentThread key={comment.id} comment={comment} comments={comments} titleOf={titleOf} />
      ))}
      {resolvedCount > 0 ? (
        <button type="button" className="quiet" aria-pressed={showResolved} onClick={() => setShowResolved((value) => !value)}>
          {showResolved ? 'Hide resolved comments' : `Show resolved comments (${resolvedCount})`}
        </button>
      ) : null}
      <NewComment comments={comments} page={page} />
    </section>
  );
}

function MarkdownBody({ markdown }: { markdown: string }) {
  const html = useMemo(() => renderMarkdown({ markdown, pagePath: '', pages: {}, files: {} }).html, [markdown]);
  return <div className="comment-body page-content" dangerouslySetInnerHTML={{ __html: html }} />;
}

const bodyText = (body: Comment['body']) => ('markdown' in body ? body.markdown : '');
const when = (iso: string) => new Date(iso).toLocaleString();

function CommentThread({ comment, comments, titleOf }: { comment: Comment; comments: CommentsApi; titleOf?: (pageId: string) => string | undefined }) {
  const pageTitle = comment.target.page ? titleOf?.(comment.target.page.id) : undefined;
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: comments.key });
  const headingId = useId();
  const replies = useQuery({
    queryKey: [...comments.key, comment.id, 'replies'],
    enabled: comment.replies > 0,
    queryFn: () => comments.replies(comment.id),
  });
  const resolve = useMutation({ mutationFn: (resolved: boolean) => comments.update(comment.id, { resolved }), onSuccess: refresh });
  const edit = useMutation({ mutationFn: (markdown: string) => comments.update(comment.id, { body: { markdown } }), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => comments.remove(comment.id),
    // The thread leaves the list first, so that its replies are not asked for again once it is gone.
    onSuccess: async () => {
      queryClient.setQueryData<Comment[]>(comments.key, (list) => list?.filter((item) => item.id !== comment.id));
      queryClient.removeQueries({ queryKey: [...comments.key, comment.id] });
      await queryClient.invalidateQueries({ queryKey: comments.key, exact: true });
    },
  });
  const reply = useMutation({ mutationFn: (markdown: string) => comments.reply(comment.id, markdown), onSuccess: refresh });
  const [replying, setReplying] = useState(false);
  const resolved = comment.status === 'resolved';

  return (
    <article className={`comment${resolved ? ' resolved' : ''}`} aria-labelledby={headingId}>
      <Entry
        headingId={headingId}
        author={comment.postedBy.displayName}
        postedAt={comment.postedAt}
        edited={comment.editedAt !== undefined}
        markdown={bodyText(comment.body)}
        note={resolved ? `Resolved by ${comment.resolvedBy?.displayName ?? 'someone'}` : comment.target.page ? (pageTitle ? `On “${pageTitle}”` : 'On a page') : undefined}
        canEdit={comment.permissions.edit}
        canDelete={comment.permissions.delete}
        onEdit={(markdown) => edit.mutateAsync(markdown)}
        onDelete={() => remove.mutateAsync()}
      />
      {(replies.data ?? []).map((entry) => (
        <ReplyEntry key={entry.id} entry={entry} commentId={comment.id} comments={comments} />
      ))}
      <div className="actions">
        {comment.permissions.reply && !replying ? (
          <button type="button" className="secondary" onClick={() => setReplying(true)}>
            Reply
          </button>
        ) : null}
        <button type="button" className="secondary" disabled={resolve.isPending} onClick={() => resolve.mutate(!resolved)}>
          {resolved ? 'Reopen' : 'Resolve'}
        </button>
      </div>
      {replying ? (
        <CommentForm
          label="Your reply"
          submit="Post reply"
          onCancel={() => setReplying(false)}
          onSubmit={async (markdown) => {
            await reply.mutateAsync(markdown);
            setReplying(false);
          }}
        />
      ) : null}
      {resolve.isError ? <ErrorNotice title="The comment was not changed" message={errorMessage(resolve.error)} /> : null}
    </article>
  );
}

function ReplyEntry({ entry, commentId, comments }: { entry: CommentReply; commentId: string; comments: CommentsApi }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: comments.key });
  const headingId = useId();
  return (
    <div className="reply" role="group" aria-labelledby={headingId}>
      <Entry
        headingId={headingId}
        author={entry.postedBy.displayName}
        postedAt={entry.postedAt}
        edited={entry.editedAt !== undefined}
        markdown={bodyText(entry.body)}
        canEdit={entry.permissions.edit}
        canDelete={entry.permissions.delete}
        onEdit={async (markdown) => {
          await comments.updateReply(commentId, entry.id, markdown);
          await refresh();
        }}
        onDelete={async () => {
          await comments.removeReply(commentId, entry.id);
          await refresh();
        }}
      />
    </div>
  );
}

/** One comment or reply: who, when, the body, and the author's edit and delete (asked again before deleting). */
function Entry(props: {
  headingId: string;
  author: string;
  postedAt: string;
  edited: boolean;
  markdown: string;
  note?: string;
  canEdit: boolean;
  canDelete: boolean;
  onEdit: (markdown: string) => Promise<unknown>;
  onDelete: () => Promise<unknown>;
}) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const run = async (action: () => Promise<unknown>) => {
    setFailure(undefined);
    try {
      await action();
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };
  return (
    <>
      <p className="comment-meta" id={props.headingId}>
        <strong>{props.author}</strong> <time dateTime={props.postedAt}>{when(props.postedAt)}</time>
        {props.edited ? ' (edited)' : ''}
        {props.note ? <span className="badge">{props.note}</span> : null}
      </p>
      {editing ? (
        <CommentForm label="Edit your comment" submit="Save" initial={props.markdown} onCancel={() => setEditing(false)} onSubmit={async (markdown) => {
          await props.onEdit(markdown);
          setEditing(false);
        }} />
      ) : (
        <MarkdownBody markdown={props.markdown} />
      )}
      {!editing && (props.canEdit || props.canDelete) ? (
        <div className="actions small">
          {props.canEdit ? (
            <button type="button" className="quiet" onClick={() => setEditing(true)}>
              Edit comment
            </button>
          ) : null}
          {props.canDelete && !confirming ? (
            <button type="button" className="quiet" onClick={() => setConfirming(true)}>
              Delete
            </button>
          ) : null}
          {confirming ? (
            <>
              <span>Delete it for everyone?</span>
              <button type="button" className="danger" onClick={() => void run(props.onDelete)}>
                Yes, delete
              </button>
              <button type="button" className="quiet" onClick={() => setConfirming(false)}>
                Keep it
              </button>
            </>
          ) : null}
        </div>
      ) : null}
      {failure ? <ErrorNotice title="That did not work" message={failure} /> : null}
    </>
  );
}

function CommentForm({ label, submit, initial = '', onSubmit, onCancel }: { label: string; submit: string; initial?: string; onSubmit: (markdown: string) => Promise<void>; onCancel?: () => void }) {
  const [text, setText] = useState(initial);
  const [failure, setFailure] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() === '') return;
    setBusy(true);
    setFailure(undefined);
    try {
      await onSubmit(text);
      setText('');
    } catch (error) {
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="comment-form" onSubmit={(event) => void send(event)}>
      <label htmlFor={id}>{label}</label>
      {/* A reply or an edit replaces the button that opened it: the focus follows into its text box. */}
      <textarea id={id} rows={3} value={text} autoFocus={onCancel !== undefined} onChange={(event) => setText(event.target.value)} />
      <div className="actions small">
        <button type="submit" disabled={busy || text.trim() === ''}>
          {submit}
        </button>
        {onCancel ? (
          <button type="button" className="quiet" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      {failure ? <ErrorNotice title="Nothing was posted" message={failure} /> : null}
    </form>
  );
}

function NewComment({ comments, page }: { comments: CommentsApi; page?: { id: string; title: string } }) {
  const queryClient = useQueryClient();
  const [onPage, setOnPage] = useState(false);
  const id = useId();
  return (
    <div className="new-comment">
      {page ? (
        <label className="check" htmlFor={id}>
          <input id={id} type="checkbox" checked={onPage} onChange={(event) => setOnPage(event.target.checked)} />
          About the page “{page.title}”
        </label>
      ) : null}
      <CommentForm
        label="New comment (Markdown)"
        submit="Post comment"
        onSubmit={async (markdown) => {
          await comments.post(markdown, onPage && page ? page.id : undefined);
          await queryClient.invalidateQueries({ queryKey: comments.key });
        }}
      />
    </div>
  );
}
