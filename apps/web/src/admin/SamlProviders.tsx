import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { all } from '../api/lists.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { adminKey, settingsPath, useOrganization, useOrganizationId } from './organization.js';
import { EMPTY_SAML_FIELDS, samlBody, SamlProviderFields, type SamlFields } from './SamlProviderFields.js';
import { useTeams } from './Teams.js';

export function useSamlProviders(organizationId: string, enabled: boolean) {
  return useQuery({
    queryKey: adminKey(organizationId, 'saml'),
    enabled,
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/saml', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
}

/** The organization's SAML identity providers, each opening its own page; a new one added here. */
export default function SamlProviders() {
  const organizationId = useOrganizationId();
  const organization = useOrganization(organizationId);
  const isAdmin = organization.data?.permissions.admin ?? false;
  const providers = useSamlProviders(organizationId, isAdmin);
  const teams = useTeams(organizationId);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [fields, setFields] = useState<SamlFields>(EMPTY_SAML_FIELDS);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/orgs/{organizationId}/saml', { params: { path: { organizationId } }, body: samlBody(fields) })),
    onSuccess: async (provider) => {
      await queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'saml') });
      await navigate(settingsPath(organizationId, `saml/${encodeURIComponent(provider.id)}`));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  if (organization.isPending) return <Loading label="Loading the organization" />;
  if (!isAdmin) {
    return (
      <section aria-labelledby="saml-title">
        <h2 id="saml-title">Single sign-on (SAML)</h2>
        <p>Only the organization&apos;s admins can see and change its identity providers.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="saml-title">
      <h2 id="saml-title">Single sign-on (SAML)</h2>
      <p className="hint">Members sign in through your identity provider. Add it here, then enter Quire&apos;s details (shown on its page) in the identity provider.</p>
      {providers.isPending ? <Loading label="Loading the identity providers" /> : null}
      {providers.isError ? <ErrorNotice title="The identity providers could not be loaded" error={providers.error} /> : null}
      {providers.data?.length === 0 ? <p>No identity provider yet.</p> : null}
      {providers.data?.length ? (
        <table className="admin-table" aria-labelledby="saml-title">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {providers.data.map((provider) => (
              <tr key={provider.id}>
                <th scope="row">
                  <Link to={settingsPath(organizationId, `saml/${encodeURIComponent(provider.id)}`)}>{provider.label}</Link>
                </th>
                <td>{provider.status === 'active' ? 'Active' : 'Incomplete: add its entity ID and certificate'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="inline-form" onSubmit={submit} aria-labelledby="new-saml-title">
        <h3 id="new-saml-title">New identity provider</h3>
        <SamlProviderFields idPrefix="new-saml" value={fields} teams={teams.data ?? []} onChange={setFields} />
        <button type="submit" disabled={create.isPending}>
          Add identity provider
        </button>
        {create.isError ? <ErrorNotice title="The identity provider was not added" message={errorMessage(create.error)} /> : null}
      </form>
    </section>
  );
}
