/*
 * Customizations of docs sites: how a published site, or one of its site spaces, looks to readers. A site
 * stores what its admins set (`PUT .../customization`), a site space only the keys it overrides
 * (`PATCH .../site-spaces/{id}/customization`). Readers, and the public API's clients, get the complete
 * settings: the service's defaults, then the site's, then the site space's, merged key by key. Pure, so the
 * API answers and the published-site reader see the same merge.
 */

export type CustomizationObject = Record<string, unknown>;

/**
 * What a site looks like when nothing was customized. Every key the public API's settings require is here
 * (its clients read them without checking), with the public API's own defaults where it states them.
 */
export const DEFAULT_SITE_CUSTOMIZATION: Readonly<CustomizationObject> = Object.freeze({
  styling: {
    theme: 'clean', primaryColor: { light: '#346DDB', dark: '#346DDB' },
    infoColor: { light: '#787878', dark: '#787878' }, successColor: { light: '#02AD00', dark: '#02AD00' },
    warningColor: { light: '#FE9A00', dark: '#FE9A00' }, dangerColor: { light: '#FB2C36', dark: '#FB2C36' },
    background: 'plain', corners: 'rounded', depth: 'subtle', links: 'default', font: 'Inter', monospaceFont: 'IBMPlexMono', icons: 'regular',
    sidebar: { background: 'default', list: 'default' }, search: 'prominent',
  },
  internationalization: { locale: 'en' },
  favicon: {},
  header: { preset: 'default', links: [] },
  footer: { groups: [] },
  themes: { default: 'light', toggeable: true },
  pdf: { enabled: true },
  feedback: { enabled: false },
  ai: { mode: 'search' },
  advancedCustomization: { enabled: true },
  git: { showEditLink: false },
  pageActions: { externalAI: true, markdown: true, mcp: true },
  externalLinks: { target: 'self' },
  pagination: { enabled: true },
  trademark: { enabled: true },
  privacyPolicy: {},
  socialPreview: {},
  insights: { trackingCookie: true },
});

function isPlainObject(value: unknown): value is CustomizationObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `over` laid on `base`: objects merge key by key (so a site space that sets only `styling.primaryColor`
 * keeps the site's theme), anything else (strings, arrays of links, whole colors) replaces.
 */
function layered(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return structuredClone(over);
  const merged: CustomizationObject = structuredClone(base);
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    // Colors and images come in light/dark pairs that are only meaningful together.
    merged[key] = isPairOf(value) ? structuredClone(value) : layered(merged[key], value);
  }
  return merged;
}

function isPairOf(value: unknown): boolean {
  return isPlainObject(value) && 'light' in value && 'dark' in value;
}

/** Header items always carry `links` and `to` in answers (the public API's clients expect both). */
function normalizedHeader(customization: CustomizationObject): void {
  const header = customization.header;
  if (!isPlainObject(header) || !Array.isArray(header.links)) return;
  header.links = header.links.map((item: unknown) => (isPlainObject(item) ? { ...item, to: item.to ?? null, links: item.links ?? [] } : item));
}

/** The complete settings of a site, or of one of its site spaces when its overrides are given. */
export function completeCustomization(site: CustomizationObject, siteSpaceOverrides?: CustomizationObject): CustomizationObject {
  let complete = layered(DEFAULT_SITE_CUSTOMIZATION, site) as CustomizationObject;
  if (siteSpaceOverrides) complete = layered(complete, siteSpaceOverrides) as CustomizationObject;
  normalizedHeader(complete);
  return complete;
}

/** A site space's overrides after a PATCH: given keys replace, null removes, absent keys stay. */
export function overriddenCustomization(current: CustomizationObject, patch: Readonly<Record<string, unknown>>): CustomizationObject {
  const next: CustomizationObject = structuredClone(current);
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else next[key] = structuredClone(value);
  }
  return next;
}

/** Stored JSON read back; anything but an object (never written by the service) counts as nothing set. */
export function parseCustomization(text: string): CustomizationObject {
  const value: unknown = JSON.parse(text);
  return isPlainObject(value) ? value : {};
}

/** Where a link goes, as the contract's CustomizationLinkTarget states it. */
export type CustomizationLinkTarget =
  | { kind: 'url'; url: string }
  | { kind: 'page'; page: string; space: string }
  | { kind: 'anchor'; anchor: string; page: string; space: string }
  | { kind: 'space'; space: string }
  | { kind: 'collection'; collection: string };

export interface CustomizationReference {
  /** Where in the body, for error messages (`body.header.links[0].to`). */
  field: string;
  target: CustomizationLinkTarget;
}

/** Every link target of a customization (header, its drop-downs, footer groups, the announcement). */
export function customizationLinks(customization: CustomizationObject, prefix = 'body'): CustomizationReference[] {
  const found: CustomizationReference[] = [];
  const take = (field: string, target: unknown) => {
    if (isPlainObject(target) && typeof target.kind === 'string') found.push({ field, target: target as unknown as CustomizationLinkTarget });
  };
  const header = customization.header;
  if (isPlainObject(header) && Array.isArray(header.links)) {
    header.links.forEach((item: unknown, index) => {
      if (!isPlainObject(item)) return;
      take(`${prefix}.header.links[${index}].to`, item.to);
      if (Array.isArray(item.links)) item.links.forEach((link: unknown, inner) => isPlainObject(link) && take(`${prefix}.header.links[${index}].links[${inner}].to`, link.to));
    });
  }
  const footer = customization.footer;
  if (isPlainObject(footer) && Array.isArray(footer.groups)) {
    footer.groups.forEach((group: unknown, index) => {
      if (isPlainObject(group) && Array.isArray(group.links)) group.links.forEach((link: unknown, inner) => isPlainObject(link) && take(`${prefix}.footer.groups[${index}].links[${inner}].to`, link.to));
    });
  }
  const announcement = customization.announcement;
  if (isPlainObject(announcement) && isPlainObject(announcement.link)) take(`${prefix}.announcement.link.to`, announcement.link.to);
  return found;
}

/** Every visitor condition of a customization (header links), with where it is. */
export function customizationConditions(customization: CustomizationObject, prefix = 'body'): Array<{ field: string; condition: string }> {
  const header = customization.header;
  if (!isPlainObject(header) || !Array.isArray(header.links)) return [];
  return header.links.flatMap((item: unknown, index) => (isPlainObject(item) && typeof item.condition === 'string' ? [{ field: `${prefix}.header.links[${index}].condition`, condition: item.condition }] : []));
}
