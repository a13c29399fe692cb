import type { components } from '@quire/api-types';
import { completeCustomization } from '../../content/site-customization.js';
import type { CustomizationRecord } from '../../services/site-customization-service.js';

export type ApiSiteCustomization = components['schemas']['SiteCustomization'];

/** The complete settings a customization operation answers (content/site-customization.ts merges them). */
export function presentCustomization(record: CustomizationRecord): ApiSiteCustomization {
  return completeCustomization(record.site, record.siteSpace) as ApiSiteCustomization;
}
