import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import type { components } from '@quire/api-types';
import { renderMarkdown } from '@quire/render';
import { useId, useMemo, useState } from 'react';
import { api } from '../api/client.js';
import { readPageVersion } from '../editor/autosave.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { markdownDiff, renderedDiff, type DiffKind } from './diffBlocks.js';

type ChangeRequest = components['schemas']['ChangeRequest'];
type Change = components['schemas']['RevisionSemanticChange'];
type PageChange = Extract<Change, { page: unknown }>;

/*
 * What a change request changes, page by page (created, edited, moved, deleted), from the main content it was
 * last brought up to date with: each page's content before and after, rendered with the changed blocks
 * marked, or as a Markdown line diff.
 */

const CHANGE_LABEL: Record<PageChange['type'], string> = {
  page_created: 'Added',
  page_deleted: 'Removed',
  page_edited: 'Changed',
  page_moved: 'Moved',
};

const MARK: Record<DiffKind, string> = { added: '+', removed: '-', same: ' ' };
const SPOKEN: Record<DiffKind, string> = { added: 'Added: ', removed: 'Removed: ', same: '' };

type View = 'rendered' | 'markdown';

/** Where a moved page went, in words: out of and into pages (titles quoted, as React text), or the top level. */
function movedSentence(before: { title: string } | undefined, after: { title: string } | undefined): string {
  const quoted = (parent: { title: string }) => `“${parent.title || 'Untitled page'}”`;
  const from = before ? `out of ${quoted(before)}` : 'from the top level';
  const to = after ? `into ${quoted(after)}` : 'to the top level';
  return `Moved ${from} ${to}.`;
}

export function ChangesView({ spaceId, changeRequest, pages }: { spaceId: string; changeRequest: ChangeRequest; pages: Record<string, string> }) {
  const [view, setView] = useState<View>('rendered');
  const name = useId();
  const changes = useQuery({
    queryKey: ['space', spaceId, 'change-request', changeRequest.id, 'changes', changeRequest.revision],
    queryFn: () => unwrap(api.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/changes', { params: { path: { spaceId, changeRequestId: changeRequest.id } } })),
  });
  if (changes.isPending) return <Loading label="Loading the changes" />;
  if (changes.isError) return <ErrorNotice title="The changes could not be loaded" error={changes.error} />;
  const pageChanges = changes.data.changes.filter((change): change is PageChange => 'page' in change);
  const base = changeRequest.revisionMergedAncestor ?? changeRequest.revisionInitial ?? '';

  return (
    <section aria-labelledby="changes-title" className="changes">
      <h2 id="changes-title">Changes</h2>
      {pageChanges.length === 0 ? <p>This change request changes no page yet.</p> : null}
      {pageChanges.length > 0 ? (
        <fieldset className="view-switch">
          <legend>Show the changes</legend>
          {(['rendered', 'markdown'] as const).map((option) => (
            <label key={option} className="check">
              <input type="radio" name={name} value={option} checked={view === option} onChange={() => setView(option)} />
              {option === 'rendered' ? 'Rendered' : 'Markdown'}
            </label>
          ))}
        </fieldset>
      ) : null}
      {pageChanges.map((change) => (
        <PageChangeView key={`${change.type}-${change.page.id}`} change={change} spaceId={spaceId} changeRequestId={changeRequest.id} base={base} view={view} pages={pages} />
      ))}
      {changes.data.more ? <p>{changes.data.more} more changes are not shown.</p> : null}
    </section>
  );
}

function PageChangeView({ change, spaceId, changeRequestId, base, view, pages }: { change: PageChange; spaceId: string; changeRequestId: string; base: string; view: View; pages: Record<string, string> }) {
  const pageId = change.page.id;
  const contentChanged = change.type === 'page_created' || change.type === 'page_deleted' || (change.type === 'page_edited' && change.attributes.document !== undefined);
  const isDocument = change.page.type === 'document';
  const before = useQuery({
    queryKey: ['revision-page-markdown', spaceId, base, pageId],
    enabled: contentChanged && isDocument && change.type !== 'page_created' && base !== '',
    staleTime: Infinity,
    queryFn: async () => (await unwrap(api.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}', { params: { path: { spaceId, revisionId: base, pageId }, query: { format: 'markdown' } } }))).markdown ?? '',
  });
  const after = useQuery({
    queryKey: ['change-request-page-markdown', spaceId, changeRequestId, pageId],
    enabled: contentChanged && isDocument && change.type !== 'page_deleted',
    queryFn: async () => (await readPageVersion({ spaceId, changeRequestId, pageId })).markdown,
  });
  const headingId = useId();

  const waiting = (before.isLoading || after.isLoading);
  const failed = before.error ?? after.error;
  const beforeText = change.type === 'page_created' ? '' : (before.data ?? '');
  const afterText = change.type === 'page_deleted' ? '' : (after.data ?? '');
  const ready = contentChanged && isDocument && !waiting && !failed;

  return (
    <article className={`page-change change-${change.type}`} aria-labelledby={headingId}>
      <h3 id={headingId}>
        <span className="badge">{CHANGE_LABEL[change.type]}</span> {change.page.title || 'Untitled page'}
      </h3>
      {change.type === 'page_moved' ? (
        <p className="moved">{movedSentence(change.parent.before, change.parent.after)}</p>
      ) : null}
      {change.type === 'page_edited' && change.attributes.title ? (
        <p>
          Title: <del>{String(change.attributes.title.before ?? '')}</del> → <ins>{String(change.attributes.title.after ?? '')}</ins>
        </p>
      ) : null}
      {waiting ? <Loading label="Loading the page on both sides" /> : null}
      {failed ? <ErrorNotice title="This page's content could not be loaded" error={failed} /> : null}
      {ready && view === 'rendered' ? <RenderedDiff before={beforeText} after={afterText} pagePath={change.page.path ?? ''} pages={pages} title={change.page.title} /> : null}
      {ready && view === 'markdown' ? <MarkdownDiff before={beforeText} after={afterText} title={change.page.title} /> : null}
    </article>
  );
}

function RenderedDiff({ before, after, pagePath, pages, title }: { before: string; after: string; pagePath: string; pages: Record<string, string>; title: string }) {
  const blocks = useMemo(() => {
    const render = (markdown: string) => renderMarkdown({ markdown, pagePath, pages, files: {} }).html;
    return renderedDiff(render(before), render(after));
  }, [before, after, pagePath, pages]);
  return (
    <div className="rendered-diff page-content" role="group" aria-label={`Rendered changes of ${title}`}>
      {blocks.map((block, index) =>
        // Sanitized by @quire/render; the blocks are its own output, split and wrapped, never re-parsed as Markdown.
        block.kind === 'added' ? (
          <ins key={index} className="diff-block" dangerouslySetInnerHTML={{ __html: block.html }} />
        ) : block.kind === 'removed' ? (
          <del key={index} className="diff-block" dangerouslySetInnerHTML={{ __html: block.html }} />
        ) : (
          <div key={index} className="diff-block" dangerouslySetInnerHTML={{ __html: block.html }} />
        ),
      )}
    </div>
  );
}

function MarkdownDiff({ before, after, title }: { before: string; after: string; title: string }) {
  const lines = useMemo(() => markdownDiff(before, after), [before, after]);
  return (
    <pre className="markdown-diff" aria-label={`Markdown changes of ${title}`} tabIndex={0}>
      {lines.map((line, index) => (
        <span key={index} className={`diff-line diff-${line.kind}`}>
          <span className="visually-hidden">{SPOKEN[line.kind]}</span>
          <span aria-hidden="true" className="diff-mark">
            {MARK[line.kind]}
          </span>
          {line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
