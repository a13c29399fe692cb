import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { Link, useParams } from 'react-router';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { OrganizationTree } from './OrganizationTree.js';
import { CreateSiteForm } from '../site/CreateSiteForm.js';
import { CreateSpaceForm } from '../start/CreateSpaceForm.js';

export default function Organization() {
  const organizationId = useParams().organizationId!;
  const organization = useQuery({
    queryKey: ['organization', organizationId],
    queryFn: () => unwrap(api.GET('/orgs/{organizationId}', { params: { path: { organizationId } } })),
  });
  const sites = useQuery({
    queryKey: ['organization', organizationId, 'sites'],
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/sites', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
  if (organization.isPending) return <Loading label="Loading the organization" />;
  if (organization.isError) return <ErrorNotice title="This organization could not be opened" error={organization.error} />;
  return (
    <section className="screen">
      <h1>{organization.data.title}</h1>
      <p className="actions">
        <Link to={`/o/${encodeURIComponent(organizationId)}/settings`}>Organization settings</Link>
      </p>
      <h2>Collections and spaces</h2>
      <OrganizationTree organizationId={organizationId} />
      <details className="create-space">
        <summary>Create a space</summary>
        <CreateSpaceForm organizationId={organizationId} />
      </details>
      <h2>Docs sites</h2>
      {sites.isError ? <ErrorNotice title="The sites could not be loaded" error={sites.error} /> : null}
      {sites.data?.length === 0 ? <p>No docs sites yet.</p> : null}
      <ul className="list">
        {sites.data?.map((site) => (
          <li key={site.id}>
            <Link to={appPath(site.urls.app)}>{site.title}</Link> <span className="badge">{site.published ? 'Published' : 'Not published'}</span>
          </li>
        ))}
      </ul>
      <details className="create-site">
        <summary>Create a docs site</summary>
        <CreateSiteForm organizationId={organizationId} />
      </details>
    </section>
  );
}
