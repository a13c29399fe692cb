import type { components } from '@quire/api-types';
import type { PublishedContentLookup, PublishedContentRedirect } from '../../services/published-content-service.js';
import type { VisitorAuthRecord } from '../../services/site-visitor-auth-service.js';

type ApiLookup = components['schemas']['PublishedContentLookup'];
type ApiRedirect = components['schemas']['PublishedContentRedirect'];
type ApiSiteVisitorAuth = components['schemas']['SiteVisitorAuth'];

export function presentPublishedContent(answer: PublishedContentLookup | PublishedContentRedirect): ApiLookup | ApiRedirect {
  if (answer.kind === 'redirect') return { object: 'published-content-redirect', reason: 'visitor-auth', target: 'external', redirect: answer.redirect };
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

export function presentSiteVisitorAuth(record: VisitorAuthRecord): ApiSiteVisitorAuth {
  return { object: 'site-visitor-auth', backendUrl: record.backendUrl, algorithm: 'HS256', signingKey: record.signingKey, updatedAt: record.updatedAt };
}
