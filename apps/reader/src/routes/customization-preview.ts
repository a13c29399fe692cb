import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiFailure, data } from '../api/api-failure.js';
import type { AddressLookup } from '../api/address-lookup.js';
import type { RevisionContent } from '../api/revision-content.js';
import type { Visit } from '../api/visit.js';
import { safeDecode } from '../http/address.js';
import { FormRefusal, readFormBody } from '../http/form-body.js';
import { commonHeaders } from '../http/headers.js';
import { sendBarePage } from '../http/respond.js';
import type { BareAnswer } from '../pages/bare-page.js';
import { notFoundInSite, renderContentPage } from '../pages/content-page.js';
import type { RenderPool } from '../render/render-pool.js';
import type { AssetPaths } from '../site/layout.js';
import type { SiteTree } from '../site/tree.js';
import type { SiteCustomization } from '../site/types.js';

/*
 * The app's preview of a customization not saved yet (issue 25): the app posts the draft, with the session's
 * CSRF token, to a page's address (a form aimed at its preview frame); the reader asks the API what the site
 * space's customization would be (`previewSiteCustomizationById`, which checks the draft as saving would and
 * allows only those who may save it, storing nothing) and renders the page with that answer through the very
 * code that serves readers. Nothing of it is cached: readers never see a draft.
 *
 * The member's session goes to that one call as its cookie, with the CSRF token the form brought: the API
 * takes the session only so, and a page of another site cannot know the token, so it cannot make a member's
 * browser ask for a preview. Bounds: the form is at most PREVIEW_FORM_BYTES (a customization is a few KB).
 */

export const PREVIEW_FORM_BYTES = 256 * 1024;

export interface PreviewDeps {
  lookups: AddressLookup;
  revisions: RevisionContent;
  renderPool: RenderPool;
  assets: AssetPaths;
}

/** What the member posts: the draft and the session's CSRF token, read before anything is asked of the API. */
export interface PreviewForm {
  draft: SiteCustomization;
  csrfToken: string;
}

export async function readPreviewForm(req: IncomingMessage): Promise<PreviewForm> {
  const form = await readFormBody(req, PREVIEW_FORM_BYTES);
  const text = form.get('customization');
  const csrfToken = form.get('csrfToken');
  if (!text || !csrfToken) throw new FormRefusal(400, 'The preview form needs the fields customization and csrfToken.');
  let draft: unknown;
  try {
    draft = JSON.parse(text);
  } catch {
    throw new FormRefusal(400, 'The customization field is not JSON.');
  }
  if (typeof draft !== 'object' || draft === null || Array.isArray(draft)) throw new FormRefusal(400, 'The customization field must be a JSON object.');
  return { draft: draft as SiteCustomization, csrfToken };
}

export function previewRefusal(error: unknown): BareAnswer | undefined {
  if (error instanceof FormRefusal) return { status: error.status, title: 'Preview refused', message: error.message };
  if (error instanceof ApiFailure && error.status >= 400 && error.status < 500) {
    // The API's own message says what is wrong with the draft (a 400) or who may preview (401, 403, 404).
    return { status: error.status, title: 'Preview refused', message: error.message };
  }
  return undefined;
}

export async function sendCustomizationPreview(
  req: IncomingMessage,
  res: ServerResponse,
  visit: Visit,
  tree: SiteTree,
  pagePath: string,
  form: PreviewForm,
  session: string,
  deps: PreviewDeps,
): Promise<void> {
  const { lookup, client } = visit;
  const asked = data(
    deps.lookups.memberClient(session, form.csrfToken).POST('/orgs/{organizationId}/sites/{siteId}/customization/preview', {
      params: { path: { organizationId: lookup.organization, siteId: lookup.site }, query: { siteSpace: lookup.siteSpace } },
      body: form.draft,
    }),
  );
  const [customization, published] = await Promise.all([asked, visit.site()]).catch((error: unknown) => {
    const refusal = previewRefusal(error);
    if (!refusal) throw error;
    sendBarePage(res, req, deps.assets, refusal);
    return [undefined, undefined] as const;
  });
  if (!customization || !published) return;
  // The draft stands for the site's settings and for the visited site space's, which is what the layout reads.
  const site = {
    ...published.site,
    customizations: { site: customization, siteSpaces: { ...published.site.customizations.siteSpaces, [lookup.siteSpace]: customization } },
  };
  const info = { ...published, site };
  const entry = safeDecode(pagePath) === '' ? tree.first : tree.byPath.get(safeDecode(pagePath));
  const page = entry
    ? await renderContentPage(info, tree, entry, {
        files: deps.revisions.files(client, lookup.space, lookup.revision),
        content: deps.revisions.pageContent(client, lookup.space, lookup.revision, entry.page),
        renderPool: deps.renderPool,
        assets: deps.assets,
      })
    : notFoundInSite(info, tree, deps.assets);
  res.writeHead(page.status, {
    ...commonHeaders(lookup.visibility),
    // Private to this member and never stored: a draft is nobody else's to see, and is gone at the next keystroke.
    'Cache-Control': 'private, no-store',
    'Content-Security-Policy': page.csp,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(page.body.length),
  });
  res.end(page.body);
}
