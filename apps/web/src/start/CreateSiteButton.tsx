import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useNavigate } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice } from '../layout/Feedback.js';

/*
 * From a space to a docs site in one step: a public site of this space alone, named after it (createSite),
 * then the site's screen, where "Publish" puts it online. The organization's own site tools choose spaces,
 * sections and looks; this is the short way of the README's quick start.
 */

/** A site's title is 2 to 128 characters; a space's may be shorter. */
const siteTitle = (spaceTitle: string) => (spaceTitle.trim().length >= 2 ? spaceTitle.trim() : 'Docs');

export function CreateSiteButton({ organizationId, spaceId, spaceTitle }: { organizationId: string; spaceId: string; spaceTitle: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: siteTitle(spaceTitle), spaces: [spaceId] } })),
    onSuccess: async (site) => {
      await queryClient.invalidateQueries({ queryKey: ['organization', organizationId, 'sites'] });
      navigate(appPath(site.urls.app));
    },
  });
  return (
    <div className="create-site-of-space">
      <button type="button" className="secondary" disabled={create.isPending} onClick={() => create.mutate()}>
        Create a docs site of this space
      </button>
      {create.isError ? <ErrorNotice title="The site was not created" message={errorMessage(create.error)} /> : null}
    </div>
  );
}
