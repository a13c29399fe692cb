import type { components } from '@quire/api-types';
import type { VisitorAuthRecord } from '../../services/site-publishing-auth-service.js';

type ApiSitePublishingAuth = components['schemas']['SitePublishingAuth'];

export function presentSitePublishingAuth(record: VisitorAuthRecord): ApiSitePublishingAuth {
  return {
    object: 'publishing-auth',
    // Sites of a self-hosted Quire have no integrations installed, so their own backend is the only one.
    backend: 'custom',
    privateKey: record.signingKey,
    ...(record.backendUrl !== undefined ? { fallbackURL: record.backendUrl } : {}),
  };
}
