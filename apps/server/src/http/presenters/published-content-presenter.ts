import type { components } from '@quire/api-types';
import type { PublishedContentLookup, PublishedContentRedirect } from '../../services/published-content-service.js';
import type { PresentContext } from './context.js';
import { redirectTargetAddress } from './site-redirect-presenter.js';

type ApiLookup = components['schemas']['PublishedContentLookup'];
type ApiRedirect = components['schemas']['PublishedContentRedirect'];

export function presentPublishedContent(context: PresentContext, answer: PublishedContentLookup | PublishedContentRedirect): ApiLookup | ApiRedirect {
  if (answer.kind === 'redirect') return { object: 'published-content-redirect', reason: 'visitor-auth', target: 'external', redirect: answer.redirect };
  if (answer.kind === 'moved-page') return { object: 'published-content-redirect', reason: 'moved-page', target: 'content', redirect: answer.redirect };
  if (answer.kind === 'site-redirect') {
    return { object: 'published-content-redirect', reason: 'site-redirect', target: 'content', redirect: redirectTargetAddress(context, answer.site, answer.destination) };
  }
  const { site, section, record } = answer;
  return {
    object: 'published-content-lookup',
    organization: site.organization_id,
    site: site.id,
    ...(section ? { siteSection: section.id } : {}),
    siteSpace: record.siteSpace.id,
    space: record.space.id,
    revision: record.space.revision_id,
    visibility: site.visibility as ApiLookup['visibility'],
    siteBasePath: answer.siteBasePath,
    basePath: answer.basePath,
    pathname: answer.pathname,
    complete: answer.complete,
    canonicalUrl: answer.canonicalUrl,
    apiToken: answer.apiToken,
    apiTokenExpiresAt: answer.apiTokenExpiresAt,
  };
}
