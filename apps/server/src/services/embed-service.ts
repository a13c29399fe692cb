import { pageMeta } from '../content/html-meta.js';
import { BadRequestError } from '../errors.js';
import { guardedFetch, OutboundUrlError } from '../net/url-guard.js';
import type { Caller } from './caller.js';
import { absoluteHttpUrl } from './http-url.js';
import type { ServiceContext } from './context.js';
import { assertSpacePermission, requireSpace } from './space-access.js';

/*
 * Embeds of web pages: the link card of a URL, fetched server-side, so only through the guard against
 * server-side request forgery (net/url-guard.ts, DESIGN.md section 6), with small limits: a card needs the
 * head of one page, never megabytes or minutes.
 */

const EMBED_MAX_BYTES = 1024 * 1024;
const EMBED_TIMEOUT_MS = 10_000;

export interface EmbedRecord {
  url: string;
  title: string;
  site: string;
  icon?: string;
}

async function embedOf(context: ServiceContext, value: string): Promise<EmbedRecord> {
  // Checked here too: the guard lets file URLs through on installs that allow local URLs, and a card is of a web page.
  const url = absoluteHttpUrl(value, 'query.url');
  let response;
  try {
    response = await guardedFetch(url, { allowLocal: context.allowLocalUrls === true, maxBytes: EMBED_MAX_BYTES, timeoutMs: EMBED_TIMEOUT_MS, headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' } });
  } catch (error) {
    if (error instanceof OutboundUrlError) throw new BadRequestError(`query.url: ${error.message}`);
    throw error;
  }
  const type = response.headers['content-type'];
  const html = response.status >= 200 && response.status < 300 && typeof type === 'string' && /^(text\/html|application\/xhtml\+xml)\b/i.test(type);
  const meta = html ? pageMeta(response.body.toString('utf8'), response.url) : {};
  return { url: url.href, title: meta.title ?? url.href, site: meta.siteName ?? url.hostname, ...(meta.icon ? { icon: meta.icon } : {}) };
}

export async function getEmbedByUrl(context: ServiceContext, _caller: Caller, url: string): Promise<EmbedRecord> {
  return embedOf(context, url);
}

/** As getEmbedByUrl, for a space the caller sees (404 otherwise, like a missing space). */
export async function getEmbedByUrlInSpace(context: ServiceContext, caller: Caller, spaceId: string, url: string): Promise<EmbedRecord> {
  assertSpacePermission(await requireSpace(context, caller, spaceId), 'view');
  return embedOf(context, url);
}
