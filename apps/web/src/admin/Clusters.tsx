import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { adminKey, useOrganizationId } from './organization.js';

/** The clusters of issues found in the support conversations, most issues first, each opening its screen. */
export default function Clusters() {
  const organizationId = useOrganizationId();
  const clusters = useQuery({
    queryKey: adminKey(organizationId, 'clusters'),
    queryFn: () =>
      all((page) => api.GET('/orgs/{organizationId}/conversations-clusters', { params: { path: { organizationId }, query: { limit: 1000, orderBy: 'issues', ...(page ? { page } : {}) } } })),
  });
  return (
    <section aria-labelledby="clusters-title">
      <h2 id="clusters-title">Conversations</h2>
      <p className="hint">The issues found in the support conversations sent to Quire, grouped into clusters of similar ones. Open a change request from a cluster to fix the docs it points at.</p>
      {clusters.isPending ? <Loading label="Loading the clusters" /> : null}
      {clusters.isError ? <ErrorNotice title="The clusters could not be loaded" error={clusters.error} /> : null}
      {clusters.data?.length === 0 ? <p>No clusters yet: they appear once conversations are sent (ingestConversation) and analysed.</p> : null}
      {clusters.data?.length ? (
        <table className="admin-table" aria-labelledby="clusters-title">
          <thead>
            <tr>
              <th scope="col">Cluster</th>
              <th scope="col">Issues</th>
              <th scope="col">Conversations</th>
              <th scope="col">Change requests</th>
            </tr>
          </thead>
          <tbody>
            {clusters.data.map((cluster) => (
              <tr key={cluster.id}>
                <th scope="row">
                  <Link to={appPath(cluster.urls.app)}>{cluster.label}</Link>
                </th>
                <td>{cluster.stats.issues}</td>
                <td>{cluster.stats.conversations}</td>
                <td>{cluster.stats.tasksTotal}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
