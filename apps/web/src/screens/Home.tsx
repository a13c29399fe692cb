import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { OrganizationTree } from './OrganizationTree.js';

export default function Home() {
  const organizations = useQuery({
    queryKey: ['organizations'],
    queryFn: () => all((page) => api.GET('/orgs', { params: { query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
  return (
    <section className="screen">
      <h1>Your organizations</h1>
      {organizations.isPending ? <Loading label="Loading your organizations" /> : null}
      {organizations.isError ? <ErrorNotice title="Your organizations could not be loaded" error={organizations.error} /> : null}
      {organizations.data?.length === 0 ? <p>You are not a member of any organization yet. Ask an admin for an invitation.</p> : null}
      {organizations.data?.map((organization) => (
        <section key={organization.id} className="organization" aria-labelledby={`org-${organization.id}`}>
          <h2 id={`org-${organization.id}`}>
            <Link to={appPath(organization.urls.app)}>{organization.title}</Link>
          </h2>
          <OrganizationTree organizationId={organization.id} />
        </section>
      ))}
    </section>
  );
}
