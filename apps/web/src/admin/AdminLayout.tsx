import { Link, NavLink, Outlet } from 'react-router';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { settingsPath, useOrganization, useOrganizationId } from './organization.js';

const SECTIONS = [
  { path: 'members', label: 'Members' },
  { path: 'teams', label: 'Teams' },
  { path: 'invitations', label: 'Invitations' },
  { path: 'permissions', label: 'Permissions' },
  { path: 'saml', label: 'SAML' },
  { path: 'merge-rules', label: 'Merge rules' },
  { path: 'git', label: 'Git sync' },
  { path: 'openapi', label: 'OpenAPI' },
  { path: 'conversations', label: 'Conversations' },
];

/** The organization's settings: one heading, the sections as links (each an address of its own), the section. */
export default function AdminLayout() {
  const organizationId = useOrganizationId();
  const organization = useOrganization(organizationId);
  if (organization.isPending) return <Loading label="Loading the organization" />;
  if (organization.isError) return <ErrorNotice title="This organization could not be opened" error={organization.error} />;
  return (
    <section className="screen settings">
      <p className="crumbs">
        <Link to={`/o/${encodeURIComponent(organizationId)}`}>{organization.data.title}</Link>
      </p>
      <h1>Settings</h1>
      {organization.data.permissions.admin ? null : <p className="notice">Only the organization&apos;s admins can change these settings; you can look at what you are allowed to see.</p>}
      <nav aria-label="Settings" className="settings-nav">
        <ul>
          {SECTIONS.map((section) => (
            <li key={section.path}>
              <NavLink to={settingsPath(organizationId, section.path)}>{section.label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Outlet />
    </section>
  );
}
