import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useId, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice } from '../layout/Feedback.js';

/*
 * A new space of the organization, with first pages to write in (a space the API creates is empty, and
 * "Edit" needs a page to open): the built-in templates of applyTemplateToSpace, applied to its main content.
 * Then the space opens. This is how a fresh installation's first admin starts writing (README, Quick start).
 */

const STARTS = [
  { id: 'getting-started', label: 'A “Welcome” page holding a “Quickstart” page' },
  { id: 'blank', label: 'One empty page' },
] as const;
type Start = (typeof STARTS)[number]['id'];

export function CreateSpaceForm({ organizationId }: { organizationId: string }) {
  const [title, setTitle] = useState('');
  const [start, setStart] = useState<Start>('getting-started');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const titleId = useId();
  const create = useMutation({
    mutationFn: async () => {
      const space = await unwrap(api.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId } }, body: { title: title.trim() } }));
      try {
        await unwrap(api.POST('/spaces/{spaceId}/content/template', { params: { path: { spaceId: space.id } }, body: { id: start } }));
      } catch (error) {
        // The space exists (it is listed): say so, so that nobody creates it a second time.
        throw new Error(`The space “${space.title}” was created, but without its first pages: ${errorMessage(error)} Open it from the list to add pages.`);
      }
      return space;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['organization', organizationId, 'tree'] }),
    onSuccess: (space) => navigate(appPath(space.urls.app)),
  });
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (title.trim() !== '') create.mutate();
  };
  return (
    <form className="create-space" onSubmit={send}>
      <label htmlFor={titleId}>Title of the new space</label>
      <input id={titleId} type="text" required maxLength={50} value={title} onChange={(event) => setTitle(event.target.value)} />
      <fieldset>
        <legend>It starts with</legend>
        {STARTS.map((option) => (
          <label key={option.id} className="check">
            <input type="radio" name={`${titleId}-start`} value={option.id} checked={start === option.id} onChange={() => setStart(option.id)} />
            {option.label}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={create.isPending || title.trim() === ''}>
        Create space
      </button>
      {create.isError ? <ErrorNotice title="The space was not created" message={errorMessage(create.error)} /> : null}
    </form>
  );
}
