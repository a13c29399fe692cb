import { useEffect, useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { api } from '../api/client.js';
import { ErrorNotice } from '../layout/Feedback.js';
import { siteKey, sitePath, type Site, type SiteRef } from './site-api.js';

/*
 * The site as the reader renders it: the reader's own page for the preview address
 * (getSitePublishingPreviewById), in a frame. The reader serves published sites only, and opens restricted
 * ones to the signed-in member, so this is exactly what readers get. The reader reuses a site's answer for up
 * to a second (its lookupCacheMs), so after a save the frame reloads once that second has passed.
 */

const READER_CACHE_MS = 1_100;

export function SitePreview({ site, siteRef, version }: { site: Site; siteRef: SiteRef; version: number }) {
  const id = useId();
  const preview = useQuery({
    queryKey: [...siteKey(siteRef), 'preview', site.published],
    queryFn: () => unwrap(api.GET('/orgs/{organizationId}/sites/{siteId}/publishing/preview', sitePath(siteRef))),
    enabled: site.published,
  });
  const [shown, setShown] = useState(version);
  useEffect(() => {
    if (version === shown) return;
    const timer = window.setTimeout(() => setShown(version), READER_CACHE_MS);
    return () => window.clearTimeout(timer);
  }, [version, shown]);

  let body;
  if (!site.published) {
    body = <p className="preview-empty">The reader serves published sites only: publish the site to see it here as readers will.</p>;
  } else if (preview.isError) {
    body = <ErrorNotice title="The preview could not be opened" message={`${preview.error instanceof Error ? preview.error.message : String(preview.error)} Check that the site has a default space.`} />;
  } else if (!preview.data) {
    body = <p className="preview-empty">Opening the preview…</p>;
  } else if (new URL(preview.data.url).origin !== window.location.origin) {
    // A site on its own hostname is another origin, which the app's policy does not frame.
    body = (
      <p className="preview-empty">
        This site is served on its own address. <a href={preview.data.url} target="_blank" rel="noreferrer">Open the preview in a new tab</a>.
      </p>
    );
  } else {
    body = (
      <>
        <iframe key={shown} className="preview-frame" title={`Preview of ${site.title}`} src={preview.data.url} />
        <p className="help">
          The frame shows the reader's narrow layout. <a href={preview.data.url} target="_blank" rel="noreferrer">Open the preview in a new tab</a> to see it full width.
        </p>
      </>
    );
  }
  return (
    <section className="preview" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Preview</h3>
      {version !== shown ? <p role="status">Updating the preview…</p> : null}
      {body}
    </section>
  );
}
