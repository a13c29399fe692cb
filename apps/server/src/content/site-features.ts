import type { CustomizationObject } from './site-customization.js';

/*
 * `features` of a docs site. In the public API it lists the premium features a site has enabled, each with the
 * plan it belongs to, `frozen` when the plan no longer includes it. A self-hosted installation sells no plans:
 * every site has every feature, so nothing is ever frozen, and a feature is listed when the site uses it, on
 * the site's own type (the plan that, here, includes everything). Pure: the presenter and the reader read the
 * same rule.
 */

export interface SiteFeature {
  id: string;
  plan: string;
  frozen: boolean;
  customizations?: string[];
}

export interface SiteFeatureFacts {
  type: string;
  visibility: string;
  hostname: string | null;
  adaptiveContent: boolean;
  /** What the site's admins set with the customization operation (not the defaults). */
  customization: CustomizationObject;
}

const object = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** The advanced customizations (the public API's `SiteCustomizationFeature` values) a customization uses. */
export function advancedCustomizationsUsed(customization: CustomizationObject): string[] {
  const styling = object(customization.styling);
  const header = object(customization.header);
  const footer = object(customization.footer);
  const used: string[] = [];
  if (header.logo) used.push('header-logo');
  if (styling.theme !== undefined && styling.theme !== 'clean') used.push('theme-preset');
  if (styling.font !== undefined && styling.font !== 'Inter') used.push('premium-fonts');
  if (styling.icons !== undefined && styling.icons !== 'regular') used.push('custom-icons');
  if (footer.logo) used.push('footer-logo');
  if (Array.isArray(footer.groups) && footer.groups.length > 0) used.push('footer-links');
  if (typeof footer.copyright === 'string' && footer.copyright !== '') used.push('footer-copyright');
  if (['infoColor', 'successColor', 'warningColor', 'dangerColor'].some((key) => styling[key] !== undefined)) used.push('semantic-colors');
  return used;
}

export function siteFeatures(facts: SiteFeatureFacts): SiteFeature[] {
  const feature = (id: string, customizations?: string[]): SiteFeature => ({ id, plan: facts.type, frozen: false, ...(customizations ? { customizations } : {}) });
  const features: SiteFeature[] = [];
  if (facts.adaptiveContent) features.push(feature('sites-adaptive-content'));
  const advanced = advancedCustomizationsUsed(facts.customization);
  if (advanced.length > 0) features.push(feature('sites-advanced-customization', advanced));
  if (facts.hostname) features.push(feature('sites-custom-domain'));
  if (facts.visibility === 'share-link') features.push(feature('sites-share-links'));
  if (facts.visibility === 'unlisted') features.push(feature('sites-unlisted-visibility'));
  if (facts.visibility === 'visitor-auth') features.push(feature('sites-visitor-authentication'));
  return features;
}
