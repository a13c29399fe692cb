import type { Caller } from '../../services/caller.js';
import { getPublishedContentByUrl, type PublishedLookupInput } from '../../services/published-content-service.js';
import { presentPublishedContent } from '../presenters/published-content-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** What readers of published sites need: resolving an address for a visitor. */
export function publishedContentHandlers({ services, present }: HandlerDeps): Handlers {
  const resolve = async (input: PublishedLookupInput, reader: Caller | undefined) => ({
    status: 200 as const,
    body: presentPublishedContent(present, await getPublishedContentByUrl(services, { ...input, ...(reader ? { reader } : {}) }, { publicUrl: present.publicUrl })),
  });
  return {
    getPublishedContentByUrl: ({ query, signedInCaller }) => resolve({
      url: query.url,
      ...(query.shareKey !== undefined ? { shareKey: query.shareKey } : {}),
      ...(query.visitorAuthToken !== undefined ? { visitorAuthToken: query.visitorAuthToken } : {}),
      ...(query.redirectOnError !== undefined ? { redirectOnError: query.redirectOnError } : {}),
    }, signedInCaller),
    // The POST form: the visitor in the body, the same lookup.
    resolvePublishedContentByUrl: ({ body, signedInCaller }) => resolve({
      url: body.url,
      field: 'body.url',
      ...(body.visitor?.jwtToken !== undefined ? { visitorAuthToken: body.visitor.jwtToken } : {}),
      ...(body.visitor?.unsignedClaims !== undefined ? { unsignedClaims: body.visitor.unsignedClaims } : {}),
      ...(body.redirectOnError !== undefined ? { redirectOnError: body.redirectOnError } : {}),
    }, signedInCaller),
  };
}
