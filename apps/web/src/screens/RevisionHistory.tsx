import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import type { components } from '@quire/api-types';
import { Link } from 'react-router';
import { api } from '../api/client.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice } from '../layout/Feedback.js';

type Revision = components['schemas']['Revision'];

/** How far back the history goes on the space screen: the API has no list of revisions, so it walks parents. */
const SHOWN_REVISIONS = 10;

const DESCRIBED: Record<string, string> = { edits: 'Edits', merge: 'Merged', rollback: 'Rolled back', update: 'Updated from main', computed: 'Computed' };

export function describeRevision(revision: Revision): string {
  const kind = DESCRIBED[revision.type] ?? revision.type;
  return revision.mergedFrom ? `${kind}: #${revision.mergedFrom.number} ${revision.mergedFrom.subject ?? ''}`.trim() : kind;
}

export function RevisionHistory({ spaceId, latest }: { spaceId: string; latest: string }) {
  const history = useQuery({
    queryKey: ['space', spaceId, 'history', latest],
    queryFn: async () => {
      const revisions: Revision[] = [];
      let next: string | undefined = latest;
      while (next && revisions.length < SHOWN_REVISIONS) {
        const revision: Revision = await unwrap(api.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path: { spaceId, revisionId: next } } }));
        revisions.push(revision);
        // The first parent is the main line (a merge's second parent is the change request's content).
        next = revision.parents[0];
      }
      return revisions;
    },
  });
  return (
    <section aria-labelledby="history">
      <h2 id="history">History</h2>
      {history.isError ? <ErrorNotice title="The history could not be loaded" error={history.error} /> : null}
      <ol className="list history">
        {history.data?.map((revision) => (
          <li key={revision.id}>
            <Link to={appPath(revision.urls.app)}>{describeRevision(revision)}</Link>{' '}
            <time dateTime={revision.createdAt}>{new Date(revision.createdAt).toLocaleString()}</time>
          </li>
        ))}
      </ol>
    </section>
  );
}
