import { customizationConditions, customizationLinks, overriddenCustomization, parseCustomization, type CustomizationObject } from '../content/site-customization.js';
import { BadRequestError } from '../errors.js';
import { nowIso } from '../ids.js';
import { findCollectionById } from '../stores/collection-store.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import { updateSiteSpace } from '../stores/site-space-store.js';
import { findSite, updateSite, type SiteWithCount } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { loadRevisionContent } from './revision-content.js';
import { publishableSpace, readableSite, siteManager, siteNotFound, withManagedSite } from './site-access.js';
import { checkConditionClaims, checkedCondition } from './site-input-checks.js';
import { requireSiteSpace, visibleSiteSpace } from './site-space-service.js';

/*
 * Customizations of docs sites (content/site-customization.ts): a site stores its settings, a site space only
 * the keys it overrides; answers carry both, and the presenter completes them with the defaults.
 */

/** What the customization operations answer from: the site's settings, and a site space's overrides. */
export interface CustomizationRecord {
  site: CustomizationObject;
  /** Present for a site space: its overrides of the site's settings. */
  siteSpace?: CustomizationObject;
}

/**
 * The checks a customization's content needs beyond its schema: conditions parse (and read only declared
 * claims), and every link points at the web or at a page, space or collection of the site's organization,
 * so that the published site never shows a link that leads nowhere.
 */
async function checkCustomization(tx: ServiceContext, caller: Caller, organizationId: string, site: SiteWithCount, customization: CustomizationObject): Promise<void> {
  for (const { field, condition } of customizationConditions(customization)) {
    checkedCondition(condition, field);
    checkConditionClaims(site, condition, field);
  }
  for (const { field, target } of customizationLinks(customization)) {
    if (target.kind === 'url') continue;
    if (target.kind === 'collection') {
      const collection = await findCollectionById(tx.db, target.collection);
      if (!collection || collection.organization_id !== organizationId) throw new BadRequestError(`${field}: no collection of this organization has the id "${target.collection}"`);
      continue;
    }
    const space = await publishableSpace(tx, caller, organizationId, target.space, `${field}.space`);
    if (target.kind === 'space') continue;
    const revision = await findRevisionOfSpace(tx.db, space.id, space.revision_id);
    if (!revision) throw new Error(`space ${space.id} has no revision ${space.revision_id}`);
    if (!(await loadRevisionContent(tx.db, revision.root)).pages.has(target.page)) throw new BadRequestError(`${field}.page: the space "${space.id}" has no page "${target.page}"`);
  }
}

export async function getSiteCustomizationById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<CustomizationRecord> {
  const { site } = await readableSite(context, caller, organizationId, siteId);
  return { site: parseCustomization(site.customizations) };
}

export async function updateSiteCustomizationById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: CustomizationObject): Promise<CustomizationRecord> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    await checkCustomization(tx, caller, organizationId, site, body);
    await updateSite(tx.db, siteId, { customizations: JSON.stringify(body), updated_at: nowIso() });
    return { site: body };
  });
}

/**
 * What the site (or `siteSpaceId`, under its overrides) would answer once `body` is saved, checked as saving
 * checks it, with nothing written: the app's preview of unsaved values. Allowed to whoever may save it. No
 * transaction nor site lock: it reads a few rows and is asked as someone types.
 */
export async function previewSiteCustomizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  body: CustomizationObject,
  siteSpaceId: string | undefined,
): Promise<CustomizationRecord> {
  await siteManager(context, caller, organizationId, 'Only organization admins can change docs sites, so only they preview a customization');
  const site = await findSite(context.db, organizationId, siteId);
  if (!site) throw siteNotFound();
  await checkCustomization(context, caller, organizationId, site, body);
  if (siteSpaceId === undefined) return { site: body };
  const siteSpace = await requireSiteSpace(context, siteId, siteSpaceId);
  return { site: body, siteSpace: parseCustomization(siteSpace.customizations) };
}

/** Only for site spaces whose space the caller sees: any other answers 404 like a missing one. */
export async function getSiteSpaceCustomizationById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, siteSpaceId: string): Promise<CustomizationRecord> {
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  const record = await visibleSiteSpace(context, who, organizationId, siteId, siteSpaceId);
  return { site: parseCustomization(site.customizations), siteSpace: parseCustomization(record.siteSpace.customizations) };
}

export async function overrideSiteSpaceCustomizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  body: Readonly<Record<string, unknown>>,
): Promise<CustomizationRecord> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    const siteSpace = await requireSiteSpace(tx, siteId, siteSpaceId);
    // Only what this request sets is checked: an override stored earlier stays as it was accepted.
    const given = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null && value !== undefined));
    await checkCustomization(tx, caller, organizationId, site, given);
    const overrides = overriddenCustomization(parseCustomization(siteSpace.customizations), body);
    await updateSiteSpace(tx.db, siteSpace.id, { customizations: JSON.stringify(overrides) });
    return { site: parseCustomization(site.customizations), siteSpace: overrides };
  });
}

export async function deleteSiteSpaceCustomizationById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, siteSpaceId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const siteSpace = await requireSiteSpace(tx, siteId, siteSpaceId);
    await updateSiteSpace(tx.db, siteSpace.id, { customizations: '{}' });
  });
}
