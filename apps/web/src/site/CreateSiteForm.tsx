import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useNavigate } from 'react-router';
import { api } from '../api/client.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice } from '../layout/Feedback.js';
import { useOrganizationContent } from '../screens/OrganizationTree.js';
import { VisibilitySelect } from './VisibilitySelect.js';
import { explain, type SiteVisibility } from './site-api.js';

/** Creates a docs site from a title, a visibility and the spaces it publishes, then opens it. */
export function CreateSiteForm({ organizationId }: { organizationId: string }) {
  const id = useId();
  const content = useOrganizationContent(organizationId);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [title, setTitle] = useState('');
  const [visibility, setVisibility] = useState<SiteVisibility>('public');
  const [spaces, setSpaces] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: title.trim(), visibility, spaces } })),
    onSuccess: async (site) => {
      await queryClient.invalidateQueries({ queryKey: ['organization', organizationId, 'sites'] });
      await navigate(appPath(site.urls.app));
    },
  });
  const toggle = (spaceId: string, on: boolean) => setSpaces((current) => (on ? [...current, spaceId] : current.filter((other) => other !== spaceId)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const tooShort = title.trim().length < 2;
  return (
    <form className="site-form" onSubmit={submit} aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>New docs site</h3>
      <label htmlFor={`${id}-title`}>Site title</label>
      <input id={`${id}-title`} value={title} maxLength={128} onChange={(event) => setTitle(event.target.value)} aria-describedby={`${id}-title-help`} />
      <p id={`${id}-title-help`} className="help">
        At least 2 characters; readers see it in the site's header.
      </p>
      <VisibilitySelect id={`${id}-visibility`} value={visibility} onChange={setVisibility} />
      <fieldset>
        <legend>Spaces to publish, in order</legend>
        {content.isPending ? <p className="help">Loading the spaces…</p> : null}
        {content.isError ? <ErrorNotice title="The spaces could not be loaded" error={content.error} /> : null}
        {content.data?.spaces.length === 0 ? <p className="help">This organization has no space yet: create one first, or add spaces to the site later.</p> : null}
        {content.data?.spaces.map((space) => (
          <label key={space.id} className="check">
            <input type="checkbox" checked={spaces.includes(space.id)} onChange={(event) => toggle(space.id, event.target.checked)} />
            {space.title || 'Untitled space'}
          </label>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" disabled={create.isPending || tooShort}>
          {create.isPending ? 'Creating the site…' : 'Create site'}
        </button>
      </div>
      {create.isError ? <ErrorNotice title="The site was not created" message={explain(create.error, 'Correct it and try again.')} /> : null}
    </form>
  );
}
