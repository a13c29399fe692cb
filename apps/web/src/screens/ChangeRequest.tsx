import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { appPath, useChangeRequest, useChangeRequestRevision, useSpace } from '../api/queries.js';
import { readPageVersion } from '../editor/autosave.js';
import { PageEditor } from '../editor/PageEditor.js';
import { flattenPages, pageAddresses, pageAt, pageById } from '../content/pages.js';
import { PageTree } from '../content/PageTree.js';
import { EditablePageTree } from '../content/EditablePageTree.js';
import { PageActions } from '../content/PageActions.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { ReviewPanel } from './ReviewPanel.js';
import { ChangesView } from '../review/ChangesView.js';
import { CommentsPanel } from '../review/CommentsPanel.js';

export default function ChangeRequest() {
  const params = useParams();
  const spaceId = params.spaceId!;
  const changeRequestId = params.changeNumber!;
  const space = useSpace(spaceId);
  const changeRequest = useChangeRequest(spaceId, changeRequestId);
  const revision = useChangeRequestRevision(spaceId, changeRequestId);
  const pages = revision.data?.pages ?? [];
  const page = pageAt(pages, params['*'] || undefined);
  const navigate = useNavigate();
  const openPageId = useRef<string | undefined>(undefined);
  const [goTo, setGoTo] = useState<string | null>(null);
  if (page) openPageId.current = page.id;

  // A page just added is opened once it is in the tree; the open page moved or renamed keeps being shown at its new path.
  useEffect(() => {
    const wanted = goTo ?? (page ? undefined : openPageId.current);
    const target = wanted ? pageById(pages, wanted) : undefined;
    if (!target) return;
    if (goTo) setGoTo(null);
    navigate(appPath(target.urls.app), { replace: !goTo });
  }, [pages, goTo, page, navigate]);
  const addresses = useMemo(() => pageAddresses(pages), [pages]);
  // `?view=changes` shows what the change request changes (the review's diff) instead of the page editor.
  const [search] = useSearchParams();
  const showChanges = search.get('view') === 'changes';
  const commentScope = useMemo(() => ({ kind: 'change-request' as const, spaceId, changeRequestId }), [spaceId, changeRequestId]);
  const choices = useMemo(() => flattenPages(pages).filter((entry) => entry.type !== 'link').map((entry) => ({ id: entry.id, title: entry.title, path: entry.path ?? '' })), [pages]);
  const pageRef = useMemo(() => (page ? { spaceId, changeRequestId, pageId: page.id } : undefined), [spaceId, changeRequestId, page?.id]);

  // Read once per page opened: the editor then owns the text, and saving compares against what it read.
  const content = useQuery({
    queryKey: ['editor', spaceId, changeRequestId, page?.id],
    enabled: pageRef !== undefined && page?.type === 'document',
    queryFn: () => readPageVersion(pageRef!),
    staleTime: Infinity,
    gcTime: 0,
  });

  if (space.isPending || changeRequest.isPending || revision.isPending) return <Loading label="Loading the change request" />;
  if (space.isError) return <ErrorNotice title="This space could not be opened" error={space.error} />;
  if (changeRequest.isError) return <ErrorNotice title="This change request could not be opened" error={changeRequest.error} />;
  if (revision.isError) return <ErrorNotice title="The content of this change request could not be loaded" error={revision.error} />;
  const editable = (changeRequest.data.status === 'open' || changeRequest.data.status === 'draft') && space.data.permissions?.edit !== false;

  return (
    <div className="space-layout">
      <aside className="sidebar">
        <p className="crumbs">
          <Link to={appPath(space.data.urls.app)}>{space.data.title || 'Untitled space'}</Link>
        </p>
        <h1 className="space-title">
          #{changeRequest.data.number} {changeRequest.data.subject || 'Untitled change request'}
        </h1>
        <p>
          <span className={`badge status-${changeRequest.data.status}`}>{changeRequest.data.status}</span>
        </p>
        {editable ? (
          <>
            <EditablePageTree pages={pages} label="Pages of the change request" spaceId={spaceId} changeRequestId={changeRequestId} />
            {page ? (
              <PageActions
                key={page.id}
                page={page}
                pages={pages}
                spaceId={spaceId}
                changeRequestId={changeRequestId}
                onCreated={setGoTo}
                onDeleted={() => {
                  openPageId.current = undefined;
                  navigate(appPath(changeRequest.data.urls.app));
                }}
              />
            ) : null}
          </>
        ) : (
          <PageTree pages={pages} label="Pages of the change request" />
        )}
      </aside>
      <section className="content" aria-labelledby={showChanges ? 'changes-title' : 'page-title'}>
        <nav className="view-tabs" aria-label="Change request views">
          <Link to="?" aria-current={showChanges ? undefined : 'page'}>
            Pages
          </Link>
          <Link to="?view=changes" aria-current={showChanges ? 'page' : undefined}>
            Changes
          </Link>
        </nav>
        {showChanges ? <ChangesView spaceId={spaceId} changeRequest={changeRequest.data} pages={addresses} /> : null}
        {showChanges ? null : <h2 id="page-title">{page ? page.title : 'No page at this address'}</h2>}
        {!showChanges && content.isPending && page?.type === 'document' ? <Loading label="Loading the page" /> : null}
        {!showChanges && content.isError ? <ErrorNotice title="This page could not be loaded" error={content.error} /> : null}
        {!showChanges && content.data !== undefined && page && pageRef ? (
          <PageEditor key={page.id} pageRef={pageRef} initial={content.data} pagePath={page.path ?? ''} pages={addresses} choices={choices} title={page.title} readOnly={!editable} />
        ) : null}
      </section>
      <aside className="activity" aria-label="Review">
        <ReviewPanel space={space.data} changeRequest={changeRequest.data} />
        <CommentsPanel scope={commentScope} page={page && !showChanges ? { id: page.id, title: page.title } : undefined} />
      </aside>
    </div>
  );
}
