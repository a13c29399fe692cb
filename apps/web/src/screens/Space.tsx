import { useMutation, useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useMemo } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { appPath, useCurrentRevision, useSession, useSpace } from '../api/queries.js';
import { pageAddresses, pageAt, pageById } from '../content/pages.js';
import { PageTree } from '../content/PageTree.js';
import { RenderedPage } from '../content/RenderedPage.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { CommentsPanel } from '../review/CommentsPanel.js';
import { CreateSiteButton } from '../start/CreateSiteButton.js';
import { ChangeRequestList } from './ChangeRequestList.js';
import { RevisionHistory } from './RevisionHistory.js';

export default function Space() {
  const params = useParams();
  const spaceId = params.spaceId!;
  const space = useSpace(spaceId);
  const revision = useCurrentRevision(spaceId);
  const session = useSession();
  const navigate = useNavigate();
  const pages = revision.data?.pages ?? [];
  const page = params.pageId ? pageById(pages, params.pageId) : pageAt(pages, params['*'] || undefined);
  const addresses = useMemo(() => pageAddresses(pages), [pages]);
  // The discussions of the main content (listCommentsInSpace...), the same panel as a change request's.
  const commentScope = useMemo(() => ({ kind: 'space' as const, spaceId }), [spaceId]);

  const content = useQuery({
    queryKey: ['space', spaceId, 'page', page?.id, revision.data?.id],
    enabled: page !== undefined && page.type === 'document',
    queryFn: () => unwrap(api.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId: page!.id }, query: { format: 'markdown' } } })),
  });

  // "Edit" resumes the caller's own change request of this space still in progress (a draft, or open for
  // review), or starts one.
  const edit = useMutation({
    mutationFn: async () => {
      const creator = session.data?.user.id;
      for (const status of ['draft', 'open'] as const) {
        const mine = await unwrap(api.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query: { status, ...(creator ? { creator } : {}) } } }));
        if (mine.items[0]) return mine.items[0];
      }
      return unwrap(api.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body: { subject: page ? `Edit ${page.title}` : 'Edits' } }));
    },
    onSuccess: (changeRequest) => navigate(`${appPath(changeRequest.urls.app)}${page?.path ? `/${page.path}` : ''}`),
  });

  if (space.isPending || revision.isPending) return <Loading label="Loading the space" />;
  if (space.isError) return <ErrorNotice title="This space could not be opened" error={space.error} />;
  if (revision.isError) return <ErrorNotice title="The content of this space could not be loaded" error={revision.error} />;
  const canEdit = space.data.permissions?.edit !== false;

  return (
    <div className="space-layout">
      <aside className="sidebar">
        <p className="crumbs">
          <Link to={`/o/${encodeURIComponent(space.data.organization)}`}>Organization</Link>
        </p>
        <h1 className="space-title">{space.data.title || 'Untitled space'}</h1>
        <PageTree pages={pages} label="Pages" />
        <CreateSiteButton organizationId={space.data.organization} spaceId={spaceId} spaceTitle={space.data.title} />
      </aside>
      <section className="content" aria-labelledby="page-title">
        <div className="toolbar">
          {canEdit ? (
            <button type="button" onClick={() => edit.mutate()} disabled={edit.isPending}>
              Edit
            </button>
          ) : null}
        </div>
        {edit.isError ? <ErrorNotice title="Editing could not start" message={errorMessage(edit.error)} /> : null}
        {page ? <h2 id="page-title">{page.title}</h2> : <h2 id="page-title">{pages.length ? 'No page at this address' : 'This space has no pages yet'}</h2>}
        {content.isPending && page?.type === 'document' ? <Loading label="Loading the page" /> : null}
        {content.isError ? <ErrorNotice title="This page could not be loaded" error={content.error} /> : null}
        {content.data && page ? <RenderedPage markdown={content.data.markdown ?? ''} pagePath={page.path ?? ''} pages={addresses} label={page.title} /> : null}
      </section>
      <aside className="activity" aria-label="Space activity">
        <ChangeRequestList spaceId={spaceId} />
        <RevisionHistory spaceId={spaceId} latest={revision.data.id} />
        <CommentsPanel scope={commentScope} page={page ? { id: page.id, title: page.title } : undefined} titleOf={(pageId) => pageById(pages, pageId)?.title} />
      </aside>
    </div>
  );
}
