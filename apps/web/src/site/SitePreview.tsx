import { useEffect, useId, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { api, currentCsrfToken, errorMessage } from '../api/client.js';
import { ErrorNotice } from '../layout/Feedback.js';
import { siteKey, sitePath, type Site, type SiteCustomization, type SiteRef } from './site-api.js';

/*
 * The site as the reader renders it with the customization being typed, saved or not. The frame is the
 * target of a form posting the draft (and the session's CSRF token) to the site's preview address
 * (getSitePublishingPreviewById); the reader asks the API what the customization would be
 * (previewSiteCustomizationById: checked as saving checks it, allowed to those who may save it, nothing
 * stored) and answers its own page with it, uncached. So the frame shows exactly what readers will get once
 * saved, and readers see nothing of it before. Posted PREVIEW_DELAY_MS after the last change, so that typing a
 * title renders once per pause rather than once per key.
 */

const PREVIEW_DELAY_MS = 400;

export function SitePreview({ site, siteRef, draft }: { site: Site; siteRef: SiteRef; draft: SiteCustomization }) {
  const id = useId();
  const frameName = `preview-${id.replace(/[^a-zA-Z0-9]/g, '')}`;
  const form = useRef<HTMLFormElement>(null);
  const preview = useQuery({
    queryKey: [...siteKey(siteRef), 'preview', site.published],
    queryFn: () => unwrap(api.GET('/orgs/{organizationId}/sites/{siteId}/publishing/preview', sitePath(siteRef))),
    enabled: site.published,
  });
  const body = JSON.stringify(draft);
  const [posted, setPosted] = useState<string | undefined>(undefined);
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const url = preview.data?.url;
  const sameOrigin = url !== undefined && new URL(url).origin === window.location.origin;
  useEffect(() => {
    if (!sameOrigin || body === posted) return;
    let cancelled = false;
    // The first draft is posted at once, so the frame never starts empty; later ones once typing pauses.
    const timer = window.setTimeout(async () => {
      // Asked first here, so that a draft the API refuses (a link not filled in yet) is said beside the form
      // while the frame keeps the last one it could show, instead of turning into an error page.
      let refused: string | undefined;
      try {
        await unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/customization/preview', { ...sitePath(siteRef), body: JSON.parse(body) as SiteCustomization }));
      } catch (error) {
        refused = errorMessage(error);
      }
      if (cancelled) return;
      setPosted(body);
      setRefusal(refused);
      if (!refused) form.current?.submit();
    }, posted === undefined ? 0 : PREVIEW_DELAY_MS);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [body, posted, sameOrigin, siteRef.organizationId, siteRef.siteId]);

  let content;
  if (!site.published) {
    content = <p className="preview-empty">The reader serves published sites only: publish the site to see it here as readers will.</p>;
  } else if (preview.isError) {
    content = <ErrorNotice title="The preview could not be opened" message={`${preview.error instanceof Error ? preview.error.message : String(preview.error)} Check that the site has a default space.`} />;
  } else if (!url) {
    content = <p className="preview-empty">Opening the preview…</p>;
  } else if (!sameOrigin) {
    // A site on its own hostname is another origin, which the app's policy does not frame.
    content = (
      <p className="preview-empty">
        This site is served on its own address. <a href={url} target="_blank" rel="noreferrer">Open the saved site in a new tab</a>.
      </p>
    );
  } else {
    content = (
      <>
        <form ref={form} method="post" action={url} target={frameName} hidden aria-hidden="true">
          <input type="hidden" name="customization" value={body} />
          <input type="hidden" name="csrfToken" value={currentCsrfToken() ?? ''} />
        </form>
        <iframe name={frameName} className="preview-frame" title={`Preview of ${site.title}`} />
        <p className="help">
          The frame shows the reader's narrow layout with the values in the form, saved or not. <a href={url} target="_blank" rel="noreferrer">Open the saved site in a new tab</a> to see it full width.
        </p>
      </>
    );
  }
  return (
    <section className="preview" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Preview</h3>
      {sameOrigin && body !== posted ? <p role="status">Updating the preview…</p> : null}
      {refusal ? <p role="alert" className="error">The preview shows the last values it could: {refusal}</p> : null}
      {content}
    </section>
  );
}
