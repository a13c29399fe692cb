import type { IncomingMessage, ServerResponse } from 'node:http';
import type { QuireClient } from '@quire/client';
import { data } from '../api/api-failure.js';
import { safeDecode } from '../http/address.js';
import { setCommonHeaders } from '../http/headers.js';
import { redirect, sendNotFoundText } from '../http/respond.js';
import type { Lookup } from '../site/types.js';

/**
 * `~images/<id>`: an image uploaded for the site's logo or icon, as a redirect to a fresh download URL read
 * with the visitor's token, so the site's visibility applies to it as to its pages (the API answers only the
 * visitor's own site's images).
 */
export async function redirectToSiteImage(req: IncomingMessage, res: ServerResponse, lookup: Lookup, client: QuireClient, imageId: string): Promise<void> {
  const image = await data(
    client.GET('/orgs/{organizationId}/sites/{siteId}/customization/images/{siteImageId}', {
      params: { path: { organizationId: lookup.organization, siteId: lookup.site, siteImageId: safeDecode(imageId) } },
    }),
  ).catch(() => undefined);
  setCommonHeaders(res, lookup.visibility);
  if (!image) {
    sendNotFoundText(res, req);
    return;
  }
  res.setHeader('Cache-Control', 'private, no-store');
  redirect(res, 302, image.downloadURL);
}
