import type { components } from '@quire/api-types';
import type { ShareLinkRecord } from '../../services/site-share-link-service.js';
import type { SiteWithCount } from '../../stores/site-store.js';
import type { PresentContext } from './context.js';
import { publishedUrl, siteAddress } from './site-presenter.js';

export type ApiShareLink = components['schemas']['ShareLink'];

export function presentShareLink(context: PresentContext, site: SiteWithCount, { link, key }: ShareLinkRecord): ApiShareLink {
  return {
    object: 'share-link',
    id: link.id,
    createdAt: link.created_at,
    name: link.name,
    active: link.active === 1,
    urls: publishedUrl(site, () => siteAddress(context, site), key),
  };
}
