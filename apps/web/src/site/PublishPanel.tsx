import { useEffect, useId, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { api } from '../api/client.js';
import { ErrorNotice } from '../layout/Feedback.js';
import { VisibilitySelect } from './VisibilitySelect.js';
import { explain, siteKey, sitePath, VISIBILITIES, type Site, type SiteRef, type SiteVisibility } from './site-api.js';

/*
 * Publishing: the site's state and address, Publish, Unpublish (confirmed in the page: it takes the site
 * offline for every reader at once), and who can read it.
 */
export function PublishPanel({ site, siteRef }: { site: Site; siteRef: SiteRef }) {
  const id = useId();
  const queryClient = useQueryClient();
  const key = siteKey(siteRef);
  const onSite = (answer: Site) => {
    queryClient.setQueryData(key, answer);
    void queryClient.invalidateQueries({ queryKey: ['organization', siteRef.organizationId, 'sites'] });
  };
  const [confirming, setConfirming] = useState(false);
  const [visibility, setVisibility] = useState<SiteVisibility>(site.visibility);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);

  const publish = useMutation({ mutationFn: () => unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/publish', sitePath(siteRef))), onSuccess: onSite });
  const unpublish = useMutation({
    mutationFn: () => unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', sitePath(siteRef))),
    onSuccess: (answer) => {
      setConfirming(false);
      onSite(answer);
    },
  });
  const changeVisibility = useMutation({
    mutationFn: () => unwrap(api.PATCH('/orgs/{organizationId}/sites/{siteId}', { ...sitePath(siteRef), body: { visibility } })),
    onSuccess: onSite,
  });
  const current = VISIBILITIES.find((option) => option.value === site.visibility);

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Publishing</h2>
      <dl className="facts">
        <dt>State</dt>
        <dd>{site.published ? 'Published' : 'Not published'}</dd>
        <dt>Visibility</dt>
        <dd>{current?.label ?? site.visibility}</dd>
        <dt>Spaces</dt>
        <dd>{site.siteSpaces}</dd>
        {site.urls.published ? (
          <>
            <dt>Address</dt>
            <dd>
              <a href={site.urls.published}>{site.urls.published}</a>
            </dd>
          </>
        ) : null}
      </dl>
      <div className="actions">
        <button type="button" disabled={publish.isPending} onClick={() => publish.mutate()}>
          {publish.isPending ? 'Publishing…' : 'Publish'}
        </button>
        {site.published && !confirming ? (
          <button type="button" className="secondary" onClick={() => setConfirming(true)}>
            Unpublish
          </button>
        ) : null}
      </div>
      {confirming ? (
        <div className="confirm" role="group" aria-labelledby={`${id}-confirm`}>
          <p id={`${id}-confirm`}>Unpublishing takes the site offline for every reader at once; its share links stop working until you publish again.</p>
          <div className="actions">
            <button ref={confirmRef} type="button" className="danger" disabled={unpublish.isPending} onClick={() => unpublish.mutate()}>
              {unpublish.isPending ? 'Taking the site offline…' : 'Yes, take it offline'}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep it online
            </button>
          </div>
        </div>
      ) : null}
      {publish.isSuccess && site.published ? <p role="status">The site is published.</p> : null}
      {unpublish.isSuccess && !site.published ? <p role="status">The site is offline: readers get a “not found” page.</p> : null}
      {publish.isError ? <ErrorNotice title="The site was not published" message={explain(publish.error, 'Nothing changed; fix this and publish again.')} /> : null}
      {unpublish.isError ? <ErrorNotice title="The site was not unpublished" message={explain(unpublish.error, 'It is still online; try again.')} /> : null}

      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          changeVisibility.mutate();
        }}
      >
        <VisibilitySelect id={`${id}-visibility`} value={visibility} onChange={setVisibility} />
        <button type="submit" className="secondary" disabled={changeVisibility.isPending || visibility === site.visibility}>
          {changeVisibility.isPending ? 'Saving…' : 'Change visibility'}
        </button>
      </form>
      {changeVisibility.isSuccess && visibility === site.visibility ? <p role="status">Visibility changed.</p> : null}
      {changeVisibility.isError ? <ErrorNotice title="The visibility was not changed" message={explain(changeVisibility.error, 'The site keeps its visibility; try again.')} /> : null}
    </section>
  );
}
