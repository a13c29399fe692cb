import type { IncomingMessage, ServerResponse } from 'node:http';
import type { QuireClient } from '@quire/client';
import { data } from '../api/api-failure.js';
import type { RevisionContent } from '../api/revision-content.js';
import type { Visit } from '../api/visit.js';
import { safeDecode } from '../http/address.js';
import { setCommonHeaders } from '../http/headers.js';
import { redirect, send, sendNotFoundText } from '../http/respond.js';
import type { SiteTree } from '../site/tree.js';
import type { Lookup } from '../site/types.js';

/** `~files/<fileId>`: a redirect to a fresh download URL of the file, read with the visitor's token. */
export async function redirectToFile(req: IncomingMessage, res: ServerResponse, lookup: Lookup, client: QuireClient, fileId: string): Promise<void> {
  const file = await data(client.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: lookup.space, fileId: safeDecode(fileId) } } })).catch(() => undefined);
  setCommonHeaders(res, lookup.visibility);
  if (!file) {
    sendNotFoundText(res, req);
    return;
  }
  res.setHeader('Cache-Control', 'private, no-store');
  redirect(res, 302, file.downloadURL);
}

/** `<page address>.md`: the page as Markdown, under its title. */
export async function sendPageMarkdown(req: IncomingMessage, res: ServerResponse, visit: Visit, tree: SiteTree, pagePath: string, revisions: RevisionContent): Promise<void> {
  const { lookup } = visit;
  const entry = tree.byPath.get(safeDecode(pagePath));
  setCommonHeaders(res, lookup.visibility);
  if (!entry || entry.page.type !== 'document') {
    sendNotFoundText(res, req);
    return;
  }
  // The site answer is not needed here, but its failure (an access refused after the lookup) still answers.
  const [page] = await Promise.all([revisions.pageContent(visit.client, lookup.space, lookup.revision, entry.page), visit.site()]);
  send(res, req, 200, 'text/markdown; charset=utf-8', `# ${entry.page.title}\n\n${page.markdown ?? ''}`);
}
