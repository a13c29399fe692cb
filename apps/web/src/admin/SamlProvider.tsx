import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { ConfirmInline } from './ConfirmInline.js';
import { CopyField } from './CopyField.js';
import { adminKey, settingsPath, useOrganizationId } from './organization.js';
import { samlBody, SamlProviderFields, type SamlFields } from './SamlProviderFields.js';
import { useTeams } from './Teams.js';

/**
 * One identity provider: Quire's side to copy into it (the metadata address, which is also Quire's entity ID,
 * the ACS URL and the sign-in start URL), its own details to edit, and deleting it after confirming.
 */
export default function SamlProvider() {
  const organizationId = useOrganizationId();
  const samlProviderId = useParams().samlProviderId!;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const path = { params: { path: { organizationId, samlProviderId } } };
  const key = adminKey(organizationId, 'saml', samlProviderId);
  const provider = useQuery({ queryKey: key, queryFn: () => unwrap(api.GET('/orgs/{organizationId}/saml/{samlProviderId}', path)) });
  const teams = useTeams(organizationId);
  const [fields, setFields] = useState<SamlFields>();
  const save = useMutation({
    mutationFn: (body: SamlFields) => unwrap(api.PATCH('/orgs/{organizationId}/saml/{samlProviderId}', { ...path, body: samlBody(body) })),
    onSuccess: async (answer) => {
      setFields(undefined);
      queryClient.setQueryData(key, answer);
      await queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'saml'), exact: true });
    },
  });
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/orgs/{organizationId}/saml/{samlProviderId}', path)),
    onSuccess: async () => {
      await navigate(settingsPath(organizationId, 'saml'));
      // Only the list is read again: the deleted one's own reads (left to expire) would be answered 404.
      await queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'saml'), exact: true });
    },
  });
  if (provider.isPending) return <Loading label="Loading the identity provider" />;
  if (provider.isError) return <ErrorNotice title="This identity provider could not be opened" error={provider.error} />;
  const { data } = provider;
  const shown: SamlFields = fields ?? {
    label: data.label,
    ssoURL: data.ssoURL,
    entityID: data.entityID,
    certificate: data.certificate,
    defaultRole: data.defaultRole,
    defaultTeam: data.defaultTeam?.id ?? '',
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(shown);
  };
  return (
    <section aria-labelledby="saml-provider-title">
      <p className="crumbs">
        <Link to={settingsPath(organizationId, 'saml')}>Single sign-on (SAML)</Link>
      </p>
      <h2 id="saml-provider-title">Identity provider “{data.label}”</h2>
      <p role="status">{data.status === 'active' ? 'Active: members can sign in through it.' : 'Incomplete: members cannot sign in through it until its entity ID and certificate are set.'}</p>

      <h3>Quire&apos;s details, for the identity provider</h3>
      <CopyField id="saml-sp-entity" label="Entity ID and metadata URL" value={data.service.entityID} copyLabel="Copy the entity ID" />
      <CopyField id="saml-sp-acs" label="Assertion consumer service (ACS) URL" value={data.service.acsURL} copyLabel="Copy the ACS URL" />
      <CopyField id="saml-sp-start" label="Sign-in start URL" value={data.service.startURL} copyLabel="Copy the start URL" />

      <form className="inline-form" onSubmit={submit} aria-labelledby="saml-edit-title">
        <h3 id="saml-edit-title">The identity provider&apos;s details</h3>
        <SamlProviderFields idPrefix="saml-edit" value={shown} teams={teams.data ?? []} onChange={setFields} />
        <button type="submit" disabled={save.isPending || fields === undefined}>
          Save changes
        </button>
        {save.isSuccess ? <p role="status">Changes saved.</p> : null}
        {save.isError ? <ErrorNotice title="The changes were not saved" message={errorMessage(save.error)} /> : null}
      </form>

      <div className="danger-zone">
        <h3>Delete the identity provider</h3>
        {confirming ? (
          <ConfirmInline
            question={`Delete “${data.label}”? Members who sign in through it will need another way in.`}
            confirmLabel="Delete identity provider"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
            onCancel={() => setConfirming(false)}
          />
        ) : (
          <button type="button" className="secondary" onClick={() => setConfirming(true)}>
            Delete this identity provider
          </button>
        )}
        {remove.isError ? <ErrorNotice title="The identity provider was not deleted" message={errorMessage(remove.error)} /> : null}
      </div>
    </section>
  );
}
