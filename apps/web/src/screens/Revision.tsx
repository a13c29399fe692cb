import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../api/client.js';
import { appPath, useSpace } from '../api/queries.js';
import { flattenPages, pageAddresses, pageAt, pageById, type RevisionPage } from '../content/pages.js';
import { RenderedPage } from '../content/RenderedPage.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { describeRevision } from './RevisionHistory.js';

/** One revision of a space as it was: its pages, each readable as it was then. */
export default function Revision() {
  const { spaceId, revisionId } = useParams() as { spaceId: string; revisionId: string };
  const space = useSpace(spaceId);
  const revision = useQuery({
    queryKey: ['space', spaceId, 'revision', revisionId],
    queryFn: () => unwrap(api.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path: { spaceId, revisionId } } })),
    staleTime: Infinity,
  });
  const pages = revision.data?.pages ?? [];
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const page: RevisionPage | undefined = chosen ? pageById(pages, chosen) : pageAt(pages, undefined);
  const addresses = useMemo(() => pageAddresses(pages), [pages]);
  const content = useQuery({
    queryKey: ['space', spaceId, 'revision', revisionId, 'page', page?.id],
    enabled: page?.type === 'document',
    queryFn: () => unwrap(api.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}', { params: { path: { spaceId, revisionId, pageId: page!.id }, query: { format: 'markdown' } } })),
    staleTime: Infinity,
  });

  if (revision.isPending) return <Loading label="Loading the revision" />;
  if (revision.isError) return <ErrorNotice title="This revision could not be opened" error={revision.error} />;
  return (
    <section className="screen">
      <p className="crumbs">{space.data ? <Link to={appPath(space.data.urls.app)}>{space.data.title || 'Untitled space'}</Link> : null}</p>
      <h1>{describeRevision(revision.data)}</h1>
      <p>
        <time dateTime={revision.data.createdAt}>{new Date(revision.data.createdAt).toLocaleString()}</time>
      </p>
      <label htmlFor="revision-page">Page</label>
      <select id="revision-page" value={page?.id ?? ''} onChange={(event) => setChosen(event.target.value)}>
        {flattenPages(pages).map((entry) => (
          <option key={entry.id} value={entry.id}>
            {entry.title}
          </option>
        ))}
      </select>
      {content.isError ? <ErrorNotice title="This page could not be loaded" error={content.error} /> : null}
      {content.data && page ? <RenderedPage markdown={content.data.markdown ?? ''} pagePath={page.path ?? ''} pages={addresses} label={page.title} /> : null}
    </section>
  );
}

