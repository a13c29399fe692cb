import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState } from 'react';
import { api, errorMessage } from '../api/client.js';
import { useSpace } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { useOrganizationContent } from '../screens/OrganizationTree.js';
import { MergeRulesEditor, type MergeRulesValue } from './MergeRulesEditor.js';
import { useOrganization, useOrganizationId } from './organization.js';

/** The merge rules of the organization, and of each space (its own, none, or the organization's). */
export default function MergeRules() {
  const organizationId = useOrganizationId();
  const organization = useOrganization(organizationId);
  const queryClient = useQueryClient();
  const content = useOrganizationContent(organizationId);
  const [spaceId, setSpaceId] = useState('');
  const save = useMutation({
    mutationFn: async (mergeRules: MergeRulesValue) => {
      // The organization's editor offers no "inherit": there is nothing above an organization.
      if (mergeRules.type === 'inherit') throw new Error('An organization has no rules to inherit.');
      return unwrap(api.PATCH('/orgs/{organizationId}', { params: { path: { organizationId } }, body: { mergeRules } }));
    },
    onSuccess: (answer) => queryClient.setQueryData(['organization', organizationId], answer),
  });
  if (organization.isPending) return <Loading label="Loading the organization" />;
  if (organization.isError) return <ErrorNotice title="This organization could not be opened" error={organization.error} />;
  const isAdmin = organization.data.permissions.admin;
  return (
    <section aria-labelledby="merge-rules-title">
      <h2 id="merge-rules-title">Merge rules</h2>
      <p className="hint">What a change request must meet before it is merged. Each space applies the organization&apos;s rules unless it sets its own.</p>
      {isAdmin ? (
        <MergeRulesEditor
          key={JSON.stringify(organization.data.mergeRules)}
          idPrefix="org-rules"
          legend="Merge rules of the organization"
          value={organization.data.mergeRules as MergeRulesValue}
          allowInherit={false}
          busy={save.isPending}
          onSave={(next) => save.mutate(next)}
        />
      ) : (
        <p>Only the organization&apos;s admins can change its merge rules.</p>
      )}
      {save.isSuccess ? <p role="status">The organization&apos;s merge rules are saved.</p> : null}
      {save.isError ? <ErrorNotice title="The merge rules were not saved" message={errorMessage(save.error)} /> : null}

      <h3>A space&apos;s merge rules</h3>
      <div className="field-row">
        <label htmlFor="merge-rules-space">Space</label>
        <select id="merge-rules-space" value={spaceId} onChange={(event) => setSpaceId(event.target.value)}>
          <option value="">Choose…</option>
          {content.data?.spaces.map((space) => (
            <option key={space.id} value={space.id}>
              {space.title || 'Untitled space'}
            </option>
          ))}
        </select>
      </div>
      {content.isError ? <ErrorNotice title="The spaces could not be loaded" error={content.error} /> : null}
      {spaceId ? <SpaceMergeRules key={spaceId} spaceId={spaceId} /> : null}
    </section>
  );
}

function SpaceMergeRules({ spaceId }: { spaceId: string }) {
  const space = useSpace(spaceId);
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (mergeRules: MergeRulesValue) => unwrap(api.PATCH('/spaces/{spaceId}', { params: { path: { spaceId } }, body: { mergeRules } })),
    onSuccess: (answer) => queryClient.setQueryData(['space', spaceId], answer),
  });
  if (space.isPending) return <Loading label="Loading the space" />;
  if (space.isError) return <ErrorNotice title="This space could not be opened" error={space.error} />;
  if (!space.data.permissions.admin) return <p>Only the space&apos;s admins can change its merge rules.</p>;
  return (
    <>
      <MergeRulesEditor
        key={JSON.stringify(space.data.mergeRules)}
        idPrefix="space-rules"
        legend={`Merge rules of the space “${space.data.title || 'Untitled space'}”`}
        value={space.data.mergeRules as MergeRulesValue}
        allowInherit
        busy={save.isPending}
        onSave={(next) => save.mutate(next)}
      />
      {save.isSuccess ? <p role="status">The space&apos;s merge rules are saved.</p> : null}
      {save.isError ? <ErrorNotice title="The merge rules were not saved" message={errorMessage(save.error)} /> : null}
    </>
  );
}
