import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { Link } from 'react-router';
import { api } from '../api/client.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice } from '../layout/Feedback.js';

export function ChangeRequestList({ spaceId }: { spaceId: string }) {
  const list = useQuery({
    queryKey: ['space', spaceId, 'change-requests', 'in-progress'],
    queryFn: async () => {
      const lists = await Promise.all(
        (['open', 'draft'] as const).map((status) => unwrap(api.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query: { status } } }))),
      );
      return lists.flatMap((list) => list.items);
    },
  });
  return (
    <section aria-labelledby="open-changes">
      <h2 id="open-changes">Change requests</h2>
      {list.isError ? <ErrorNotice title="The change requests could not be loaded" error={list.error} /> : null}
      {list.data?.length === 0 ? <p>None.</p> : null}
      <ul className="list">
        {list.data?.map((changeRequest) => (
          <li key={changeRequest.id}>
            <Link to={appPath(changeRequest.urls.app)}>
              #{changeRequest.number} {changeRequest.subject || 'Untitled change request'}
            </Link>{' '}
            <span className="badge">{changeRequest.status}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
