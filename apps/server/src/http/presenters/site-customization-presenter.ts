import type { components } from '@quire/api-types';
import { completeCustomization } from '../../content/site-customization.js';
import type { SiteImageRecord } from '../../services/site-customization-image-service.js';
import type { CustomizationRecord } from '../../services/site-customization-service.js';
import type { PresentContext } from './context.js';
import { siteAddress } from './site-presenter.js';

export type ApiSiteCustomization = components['schemas']['SiteCustomization'];

/** The complete settings a customization operation answers (content/site-customization.ts merges them). */
export function presentCustomization(record: CustomizationRecord): ApiSiteCustomization {
  return completeCustomization(record.site, record.siteSpace) as ApiSiteCustomization;
}

export type ApiSiteCustomizationImage = components['schemas']['SiteCustomizationImage'];

/**
 * The reader's address of a site image, `<site address>/~images/<id>`: under the site, so that the site's
 * visibility, share key and visitor token apply to it as to its pages.
 */
export function siteImageAddress(context: PresentContext, record: SiteImageRecord): string {
  return `${siteAddress(context, record.site)}/~images/${encodeURIComponent(record.image.id)}`;
}

export function presentSiteImage(context: PresentContext, record: SiteImageRecord): ApiSiteCustomizationImage {
  const { image, signer } = record;
  return {
    object: 'site-customization-image',
    id: image.id,
    url: siteImageAddress(context, record),
    downloadURL: signer.sign({ hash: image.blob_hash, filename: image.name, contentType: image.content_type }),
    contentType: image.content_type as ApiSiteCustomizationImage['contentType'],
    size: image.size,
    dimensions: { width: image.width, height: image.height },
  };
}
