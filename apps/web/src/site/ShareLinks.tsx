import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { CopyButton } from './CopyButton.js';
import { explain, shareLinksKey, type Site, type SiteRef } from './site-api.js';

/*
 * Share links: secret addresses that open a `share-link` site to people outside the organization. Revoking
 * one deletes it: the reader looks every request up, so it stops working at once.
 */
export function ShareLinks({ site, siteRef }: { site: Site; siteRef: SiteRef }) {
  const id = useId();
  const queryClient = useQueryClient();
  const key = shareLinksKey(siteRef);
  const [name, setName] = useState('');
  const links = useQuery({
    queryKey: key,
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/sites/{siteId}/share-links', { params: { path: siteRef, query: { limit: 100, ...(page ? { page } : {}) } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const create = useMutation({
    mutationFn: (linkName: string) => unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: { path: siteRef }, body: { name: linkName } })),
    onSuccess: async () => {
      setName('');
      await refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (shareLinkId: string) => unwrap(api.DELETE('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: { path: { ...siteRef, shareLinkId } } })),
    onSettled: refresh,
  });
  const setActive = useMutation({
    mutationFn: ({ shareLinkId, active }: { shareLinkId: string; active: boolean }) =>
      unwrap(api.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: { path: { ...siteRef, shareLinkId } }, body: { active } })),
    onSettled: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) create.mutate(name.trim());
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Share links</h2>
      {site.visibility !== 'share-link' ? <p className="help">Share links open the site only while its visibility is “Share links”; change it above to use them.</p> : null}
      {!site.published ? <p className="help">A link's address appears once the site is published.</p> : null}
      {links.isPending ? <Loading label="Loading the share links" /> : null}
      {links.isError ? <ErrorNotice title="The share links could not be loaded" error={links.error} /> : null}
      {links.data?.length === 0 ? <p>No share link yet.</p> : null}
      {links.data && links.data.length > 0 ? (
        <ul className="share-links">
          {links.data.map((link) => (
            <li key={link.id}>
              <div className="item-row">
                <span className="item-title">{link.name}</span>
                <span className="badge">{link.active ? 'Active' : 'Inactive'}</span>
                <span className="item-actions">
                  {link.urls.published ? <CopyButton text={link.urls.published} label="Copy address" what={`of ${link.name}`} /> : null}
                  <button type="button" className="quiet" disabled={setActive.isPending} onClick={() => setActive.mutate({ shareLinkId: link.id, active: !link.active })}>
                    {link.active ? 'Deactivate' : 'Activate'}
                    <span className="site-sr-only"> {link.name}</span>
                  </button>
                  <button type="button" className="quiet danger-text" disabled={revoke.isPending} onClick={() => revoke.mutate(link.id)}>
                    Revoke<span className="site-sr-only"> {link.name}</span>
                  </button>
                </span>
              </div>
              {link.urls.published ? <code className="secret-text">{link.urls.published}</code> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <form className="inline-form" onSubmit={submit}>
        <label htmlFor={`${id}-name`}>Who the new link is for</label>
        <input id={`${id}-name`} value={name} maxLength={50} onChange={(event) => setName(event.target.value)} />
        <button type="submit" className="secondary" disabled={!name.trim() || create.isPending}>
          {create.isPending ? 'Creating…' : 'Create share link'}
        </button>
      </form>
      {create.isError ? <ErrorNotice title="The share link was not created" message={explain(create.error, 'Try again.')} /> : null}
      {revoke.isError ? <ErrorNotice title="The share link was not revoked" message={explain(revoke.error, 'It may still open the site; try again.')} /> : null}
      {setActive.isError ? <ErrorNotice title="The share link was not changed" message={explain(setActive.error, 'Try again.')} /> : null}
    </section>
  );
}
