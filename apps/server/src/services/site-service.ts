import { createHash, randomBytes } from 'node:crypto';
import type { components } from '@quire/api-types';
import { AdaptiveSchemaError, checkAdaptiveSchema, declaresClaim, templateConditions, type AdaptiveJsonSchema, type TemplateCondition } from '../content/site-adaptive-schema.js';
import { conditionClaims, parseCondition, ConditionError } from '../content/site-conditions.js';
import { slugify, uniqueSlug } from '../content/tree.js';
import { isUniqueViolation } from '../db/dialect.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import { canManageSites, canReadPublishedSite, canReadSites, canSeeShareKeys, type SiteVisibilityName } from '../policies/site-policy.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import { visitorSeesSection, visitorSeesSite, visitorSeesSiteSpace } from '../policies/visitor-policy.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findMembership } from '../stores/organization-store.js';
import {
  allGroups,
  allSections,
  allSiteSpaces,
  deleteGroup,
  deleteSection,
  deleteShareLink,
  deleteSite,
  deleteSiteSpace,
  findGroup,
  findSection,
  findShareLink,
  findShareLinkByKeyHash,
  findSite,
  findSiteById,
  findSiteIdByHostname,
  findSiteSpace,
  findSiteSpaceRecord,
  GROUP_ORDER_KEY_LENGTH,
  insertGroup,
  insertSection,
  insertShareLink,
  insertSite,
  insertSiteSpace,
  listGroupsPage,
  listSectionsPage,
  listShareLinksPage,
  listSites as listSiteRows,
  listSiteSpacesPage,
  lockSite,
  moveRootSiteSpacesToSection,
  SECTION_ORDER_KEY_LENGTH,
  setDefaultSection,
  setDefaultSiteSpace,
  SHARE_LINK_ORDER_KEY_LENGTH,
  SITE_ORDER_KEY_LENGTH,
  SITE_SPACE_ORDER_KEY_LENGTH,
  siteSpaceOfSpace,
  siteSpacesAtLevel,
  updateGroup,
  updateSection,
  updateShareLink,
  updateSite,
  updateSiteSpace,
  type ShareLinkRow,
  type SiteSectionGroupRow,
  type SiteSectionRow,
  type SiteSpaceRecord,
  type SiteSpaceRow,
  type SiteWithCount,
} from '../stores/site-store.js';
import { isVisitor, type Caller, type Principal } from './caller.js';
import type { ServiceContext } from './context.js';
import { positionBetween } from './position-keys.js';
import { openValue, sealValue, type SealingKey } from './sealed-values.js';
import { requireSpace } from './space-service.js';

type SiteType = components['schemas']['SiteType'];
type SiteVisibility = components['schemas']['SiteVisibility'];

/*
 * Docs sites: a site publishes spaces of its organization (site spaces), at its root or in sections, which
 * section groups gather. Each level (the root, or a section) has one default site space, the first one until
 * another is chosen; a site with sections has one default section. Positions are fractional keys made in a
 * transaction that holds the site's lock. Share links carry a random key, looked up by its SHA-256 and kept
 * sealed to show it again to those who manage the site.
 */

// ------------------------------------------------------------------------------------------- access

/** The caller's standing in the site's organization: undefined for outsiders. */
export interface SiteCaller {
  membership: OrganizationMembership | undefined;
  viewer: ContentViewer;
}

async function siteCaller(context: ServiceContext, caller: Caller, organizationId: string): Promise<SiteCaller> {
  const row = await findMembership(context.db, organizationId, caller.user.id);
  const membership = row ? membershipFromRow(row) : undefined;
  return { membership, viewer: { userId: caller.user.id, membership } };
}

function siteNotFound(): NotFoundError {
  return new NotFoundError('No site of this organization has this id');
}

/** A site its organization's member reads; another organization's (or a missing) site answers 404. */
export async function readableSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<{ site: SiteWithCount; who: SiteCaller }> {
  const who = await siteCaller(context, caller, organizationId);
  if (!canReadSites(who.membership)) throw new NotFoundError('No organization matches this id');
  const site = await findSite(context.db, organizationId, siteId);
  if (!site) throw siteNotFound();
  return { site, who };
}

/**
 * Runs `work` in a transaction on a site the caller manages, holding the site's lock. 404 for a site that is
 * not there (or is another organization's), 403 for members below admin.
 */
export async function withManagedSite<T>(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  work: (tx: ServiceContext, site: SiteWithCount, who: SiteCaller) => Promise<T>,
  options: { absent?: () => T } = {},
): Promise<T> {
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const who = await siteCaller(tx, caller, organizationId);
    if (!canReadSites(who.membership)) throw new NotFoundError('No organization matches this id');
    if (!canManageSites(who.membership)) throw new ForbiddenError('Only organization admins can change docs sites');
    await lockSite(trx, context.dialect, siteId);
    const site = await findSite(trx, organizationId, siteId);
    if (!site) {
      if (options.absent) return options.absent();
      throw siteNotFound();
    }
    return work(tx, site, who);
  });
}

/** Checks a condition with the expression parser of content/site-conditions.ts; 400 saying what is wrong. */
function checkedCondition(condition: string | null | undefined, field: string): string | null | undefined {
  if (condition === undefined || condition === null) return condition;
  try {
    parseCondition(condition);
  } catch (error) {
    if (error instanceof ConditionError) throw new BadRequestError(`${field} is not a valid condition: ${error.message}`);
    throw error;
  }
  return condition;
}

/**
 * Once a site has an adaptive schema, its conditions may only read the claims the schema declares: a typo in
 * a claim name would otherwise hide content from every visitor without a word.
 */
function checkConditionClaims(site: SiteWithCount, condition: string | null | undefined, field: string): void {
  if (condition === undefined || condition === null || site.adaptive_schema === null) return;
  const schema = JSON.parse(site.adaptive_schema) as AdaptiveJsonSchema;
  for (const path of conditionClaims(parseCondition(condition))) {
    if (!declaresClaim(schema, path)) throw new BadRequestError(`${field} reads visitor.claims.${path.join('.')}, which the site's adaptive schema does not declare`);
  }
}

/** A space of the organization the caller sees, to publish; anything else is the caller's mistake (400). */
async function publishableSpace(context: ServiceContext, caller: Caller, organizationId: string, spaceId: string, field: string) {
  let access;
  try {
    access = await requireSpace(context, caller, spaceId);
  } catch (error) {
    if (error instanceof NotFoundError) throw new BadRequestError(`${field}: no space of this organization has the id "${spaceId}"`);
    throw error;
  }
  if (access.space.organization_id !== organizationId) throw new BadRequestError(`${field}: no space of this organization has the id "${spaceId}"`);
  return access.space;
}

// --------------------------------------------------------------------------------------------- sites

export interface SiteQuery {
  page?: string;
  limit?: number;
  space?: string;
  title?: string;
  published?: boolean;
  type?: SiteType[];
}

export async function listSites(context: ServiceContext, caller: Caller, organizationId: string, query: SiteQuery): Promise<KeysetPage<SiteWithCount>> {
  const { after, limit } = pageRequest(query, SITE_ORDER_KEY_LENGTH);
  const who = await siteCaller(context, caller, organizationId);
  if (!canReadSites(who.membership)) throw new NotFoundError('No organization matches this id');
  return listSiteRows(context.db, organizationId, {
    ...(query.space !== undefined ? { space: query.space } : {}),
    ...(query.title !== undefined ? { title: query.title } : {}),
    ...(query.published !== undefined ? { published: query.published } : {}),
    ...(query.type !== undefined ? { types: query.type } : {}),
  }, after, limit);
}

/** A path for a new site space, from the space's title, unique at its level. */
function newSiteSpacePath(title: string, taken: readonly SiteSpaceRow[]): string {
  return uniqueSlug(slugify(title || 'space').slice(0, 90), new Set(taken.map((row) => row.path)));
}

async function appendSiteSpace(tx: ServiceContext, siteId: string, sectionId: string | null, space: { id: string; title: string }): Promise<string> {
  if (await siteSpaceOfSpace(tx.db, siteId, space.id)) throw new ConflictError(`The space "${space.id}" is already published on this site`);
  const level = await siteSpacesAtLevel(tx.db, siteId, sectionId);
  const id = newId();
  await insertSiteSpace(tx.db, {
    id, site_id: siteId, section_id: sectionId, space_id: space.id, path: newSiteSpacePath(space.title, level), condition: null,
    // The first space of a level is its default until another is chosen.
    is_default: level.length === 0 ? 1 : 0,
    position: positionBetween(level.at(-1)?.position ?? null, null), customizations: '{}', created_at: nowIso(),
  });
  return id;
}

export async function createSite(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  body: { type?: SiteType; title?: string; visibility?: SiteVisibility; spaces?: string[] } = {},
): Promise<SiteWithCount> {
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const who = await siteCaller(tx, caller, organizationId);
    if (!canReadSites(who.membership)) throw new NotFoundError('No organization matches this id');
    if (!canManageSites(who.membership)) throw new ForbiddenError('Only organization admins can create docs sites');
    const spaces = [];
    for (const [index, spaceId] of (body.spaces ?? []).entries()) spaces.push(await publishableSpace(tx, caller, organizationId, spaceId, `body.spaces[${index}]`));
    const now = nowIso();
    const id = newId();
    await insertSite(trx, {
      id, organization_id: organizationId, type: body.type ?? 'basic', title: body.title ?? 'Untitled site', visibility: body.visibility ?? 'public',
      published: 0, basename: null, hostname: null, proxy: null, adaptive_content: 0, agents_context: 'included', customizations: '{}',
      adaptive_schema: null, adaptive_schema_updated_at: null, created_at: now, updated_at: now,
    });
    for (const space of spaces) await appendSiteSpace(tx, id, null, space);
    return (await findSite(trx, organizationId, id))!;
  });
}

export async function getSiteById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<SiteWithCount> {
  return (await readableSite(context, caller, organizationId, siteId)).site;
}

export async function deleteSiteById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    await deleteSite(tx.db, organizationId, siteId);
  }, { absent: () => undefined });
}

export interface SiteUpdate {
  title?: string;
  visibility?: SiteVisibility;
  basename?: string;
  adaptiveContent?: { enabled: boolean };
  agentsContext?: 'excluded' | 'included';
  defaultSiteSpace?: string;
  defaultSiteSection?: string;
  proxy?: string | null;
  hostname?: string | null;
}

/** Basenames are one path segment of the site's address. */
const BASENAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export async function updateSiteById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: SiteUpdate): Promise<SiteWithCount> {
  if (body.basename !== undefined && !BASENAME.test(body.basename)) throw new BadRequestError('body.basename must be one path segment: letters, digits, ".", "_" and "-", starting with a letter or digit');
  try {
    return await withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
      if (body.hostname) {
        const holder = await findSiteIdByHostname(tx.db, body.hostname);
        if (holder !== undefined && holder !== siteId) throw new ConflictError(`The hostname "${body.hostname}" is already used by another site`);
      }
      if (body.defaultSiteSpace !== undefined) {
        const siteSpace = await findSiteSpace(tx.db, siteId, body.defaultSiteSpace);
        if (!siteSpace) throw new BadRequestError(`body.defaultSiteSpace: the site has no site space "${body.defaultSiteSpace}"`);
        await setDefaultSiteSpace(tx.db, siteId, siteSpace.section_id, siteSpace.id);
      }
      if (body.defaultSiteSection !== undefined) {
        const section = await findSection(tx.db, siteId, body.defaultSiteSection);
        if (!section) throw new BadRequestError(`body.defaultSiteSection: the site has no section "${body.defaultSiteSection}"`);
        await setDefaultSection(tx.db, siteId, section.id);
      }
      await updateSite(tx.db, siteId, {
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.visibility !== undefined ? { visibility: body.visibility } : {}),
        ...(body.basename !== undefined ? { basename: body.basename } : {}),
        ...(body.adaptiveContent !== undefined ? { adaptive_content: body.adaptiveContent.enabled ? 1 : 0 } : {}),
        ...(body.agentsContext !== undefined ? { agents_context: body.agentsContext } : {}),
        ...(body.proxy !== undefined ? { proxy: body.proxy } : {}),
        ...(body.hostname !== undefined ? { hostname: body.hostname } : {}),
        updated_at: nowIso(),
      });
      return (await findSite(tx.db, organizationId, site.id))!;
    });
  } catch (error) {
    // Two sites asking for the same hostname at once: the unique index decides.
    if (isUniqueViolation(error)) throw new ConflictError(`The hostname "${body.hostname}" is already used by another site`);
    throw error;
  }
}

async function setPublished(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, published: boolean): Promise<SiteWithCount> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    if ((site.published === 1) === published) return site;
    await updateSite(tx.db, siteId, { published: published ? 1 : 0, updated_at: nowIso() });
    return (await findSite(tx.db, organizationId, siteId))!;
  });
}

export async function publishSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<SiteWithCount> {
  return setPublished(context, caller, organizationId, siteId, true);
}

export async function unpublishSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<SiteWithCount> {
  return setPublished(context, caller, organizationId, siteId, false);
}

// -------------------------------------------------------------------------------------- share keys

const SHARE_KEY_SEALING: SealingKey = { secretName: 'site-share-links', info: 'quire site share links v1' };

function keyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A share link with its key opened (for those who manage the site). */
export interface ShareLinkRecord {
  link: ShareLinkRow;
  key: string;
}

async function withKey(context: ServiceContext, link: ShareLinkRow): Promise<ShareLinkRecord> {
  return { link, key: await openValue(context.db, SHARE_KEY_SEALING, link.sealed_key, link.id) };
}

/**
 * What a `shareKey` of a request opens: undefined when none was given; 'refused' when it is not the key of an
 * active share link of this site (inactive, deleted, another site's, or made up).
 */
/** The active share link of this site whose key this is; undefined for any other key. */
export async function activeShareLinkOf(context: ServiceContext, siteId: string, shareKey: string): Promise<ShareLinkRow | undefined> {
  const link = await findShareLinkByKeyHash(context.db, keyHash(shareKey));
  return link && link.site_id === siteId && link.active === 1 ? link : undefined;
}

async function shareKeyOf(context: ServiceContext, siteId: string, shareKey: string | undefined): Promise<string | undefined | 'refused'> {
  if (shareKey === undefined) return undefined;
  const link = await findShareLinkByKeyHash(context.db, keyHash(shareKey));
  if (!link || link.site_id !== siteId || link.active !== 1) return 'refused';
  return shareKey;
}

/** The published side of a site for this caller: who they are and the key the answer's URLs carry. */
export interface PublishedView {
  site: SiteWithCount;
  who: SiteCaller;
  shareKey?: string;
}

/**
 * Opens a site's published structure: members see their site whatever its state; others a published site as
 * `canReadPublishedSite` allows. A refused key answers as if the site did not exist.
 */
async function publishedView(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, shareKey: string | undefined): Promise<PublishedView> {
  const who = await siteCaller(context, caller, organizationId);
  const site = await findSite(context.db, organizationId, siteId);
  if (!site) throw siteNotFound();
  const key = await shareKeyOf(context, siteId, shareKey);
  if (key === 'refused') throw siteNotFound();
  const allowed = canReadPublishedSite({
    membership: who.membership, published: site.published === 1, visibility: site.visibility as SiteVisibilityName,
    activeShareKey: key !== undefined && site.visibility === 'share-link',
  });
  if (!allowed) throw siteNotFound();
  return { site, who, ...(key !== undefined ? { shareKey: key } : {}) };
}

// ---------------------------------------------------------------------------------------- site spaces

export interface SiteSpacePage extends KeysetPage<SiteSpaceRecord> {
  site: SiteWithCount;
  sections: SiteSectionRow[];
  shareKey?: string;
}

/**
 * Members see the site spaces whose spaces they see (visibility-policy's rule, in SQL); readers of the
 * published site see them all, as readers, with no role on the spaces.
 */
function spaceFilter(who: SiteCaller): { viewer: ContentViewer; filter: boolean } {
  return { viewer: who.viewer, filter: canReadSites(who.membership) };
}

export async function listSiteSpaces(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  query: { page?: string; limit?: number; shareKey?: string; default?: boolean },
): Promise<SiteSpacePage> {
  const { after, limit } = pageRequest(query, SITE_SPACE_ORDER_KEY_LENGTH);
  const view = await publishedView(context, caller, organizationId, siteId, query.shareKey);
  const page = await listSiteSpacesPage(context.db, organizationId, siteId, spaceFilter(view.who), query.default, after, limit);
  return { ...page, site: view.site, sections: await allSections(context.db, siteId), ...(view.shareKey ? { shareKey: view.shareKey } : {}) };
}

/** A site space with what its presentation needs (its site and the site's sections, for its address). */
export interface SiteSpaceView {
  record: SiteSpaceRecord;
  site: SiteWithCount;
  sections: SiteSectionRow[];
}

async function siteSpaceView(tx: ServiceContext, who: SiteCaller, organizationId: string, siteId: string, siteSpaceId: string): Promise<SiteSpaceView> {
  const record = await findSiteSpaceRecord(tx.db, organizationId, siteId, siteSpaceId, who.viewer);
  if (!record) throw new NotFoundError('The site has no site space with this id');
  return { record, site: (await findSite(tx.db, organizationId, siteId))!, sections: await allSections(tx.db, siteId) };
}

export async function addSpaceToSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: { spaceId: string; sectionId?: string }): Promise<SiteSpaceView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const space = await publishableSpace(tx, caller, organizationId, body.spaceId, 'body.spaceId');
    let sectionId: string | null = null;
    if (body.sectionId !== undefined) {
      const section = await findSection(tx.db, siteId, body.sectionId);
      if (!section) throw new BadRequestError(`body.sectionId: the site has no section "${body.sectionId}"`);
      sectionId = section.id;
    } else {
      const sections = await allSections(tx.db, siteId);
      sectionId = (sections.find((section) => section.is_default === 1) ?? sections[0])?.id ?? null;
    }
    const id = await appendSiteSpace(tx, siteId, sectionId, space);
    return siteSpaceView(tx, who, organizationId, siteId, id);
  });
}

export async function updateSiteSpaceById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  body: { path?: string; condition?: string | null; spaceId?: string },
): Promise<SiteSpaceView> {
  if (body.path !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(body.path)) {
    throw new BadRequestError('body.path must be one path segment: letters, digits, ".", "_" and "-", starting with a letter or digit');
  }
  const condition = checkedCondition(body.condition, 'body.condition');
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site, who) => {
    const siteSpace = await findSiteSpace(tx.db, siteId, siteSpaceId);
    if (!siteSpace) throw new NotFoundError('The site has no site space with this id');
    checkConditionClaims(site, condition, 'body.condition');
    if (body.path !== undefined && body.path !== siteSpace.path) {
      const level = await siteSpacesAtLevel(tx.db, siteId, siteSpace.section_id);
      if (level.some((row) => row.id !== siteSpace.id && row.path === body.path)) throw new BadRequestError(`body.path: another site space of this level already has the path "${body.path}"`);
    }
    if (body.spaceId !== undefined && body.spaceId !== siteSpace.space_id) {
      await publishableSpace(tx, caller, organizationId, body.spaceId, 'body.spaceId');
      if (await siteSpaceOfSpace(tx.db, siteId, body.spaceId)) throw new ConflictError(`The space "${body.spaceId}" is already published on this site`);
    }
    await updateSiteSpace(tx.db, siteSpace.id, {
      ...(body.path !== undefined ? { path: body.path } : {}),
      ...(condition !== undefined ? { condition } : {}),
      ...(body.spaceId !== undefined ? { space_id: body.spaceId } : {}),
    });
    return siteSpaceView(tx, who, organizationId, siteId, siteSpace.id);
  });
}

/** After the default of a level left it, the first remaining one becomes the default. */
async function promoteDefaultSiteSpace(tx: ServiceContext, siteId: string, sectionId: string | null): Promise<void> {
  const level = await siteSpacesAtLevel(tx.db, siteId, sectionId);
  if (level.length > 0 && !level.some((row) => row.is_default === 1)) await setDefaultSiteSpace(tx.db, siteId, sectionId, level[0]!.id);
}

export async function deleteSiteSpaceById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, siteSpaceId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const siteSpace = await findSiteSpace(tx.db, siteId, siteSpaceId);
    if (!siteSpace) return;
    await deleteSiteSpace(tx.db, siteSpace.id);
    await promoteDefaultSiteSpace(tx, siteId, siteSpace.section_id);
  }, { absent: () => undefined });
}

type SiblingPointer = { type: 'site-space'; siteSpace: string };

export async function moveSiteSpace(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  body: { position?: { before?: SiblingPointer; after?: SiblingPointer } } | undefined,
): Promise<SiteSpaceView> {
  const { before, after } = body?.position ?? {};
  if (before && after) throw new BadRequestError('body.position gives either before or after, not both');
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const siteSpace = await findSiteSpace(tx.db, siteId, siteSpaceId);
    if (!siteSpace) throw new NotFoundError('The site has no site space with this id');
    const siblings = (await siteSpacesAtLevel(tx.db, siteId, siteSpace.section_id)).filter((row) => row.id !== siteSpace.id);
    const pointer = before ?? after;
    let index = siblings.length;
    if (pointer) {
      const at = siblings.findIndex((row) => row.id === pointer.siteSpace);
      if (at < 0) throw new BadRequestError(`body.position: "${pointer.siteSpace}" is not another site space of the same level`);
      index = before ? at : at + 1;
    }
    const position = positionBetween(siblings[index - 1]?.position ?? null, siblings[index]?.position ?? null);
    await updateSiteSpace(tx.db, siteSpace.id, { position });
    return siteSpaceView(tx, who, organizationId, siteId, siteSpace.id);
  });
}

// --------------------------------------------------------------------------------- site structure

/** Everything of a site's structure, read at once (a site holds tens of items, not thousands). */
export interface SiteStructure {
  site: SiteWithCount;
  sections: SiteSectionRow[];
  groups: SiteSectionGroupRow[];
  siteSpaces: SiteSpaceRecord[];
  shareKey?: string;
}

async function loadStructure(context: ServiceContext, view: PublishedView, organizationId: string): Promise<SiteStructure> {
  return {
    site: view.site,
    sections: await allSections(context.db, view.site.id),
    groups: await allGroups(context.db, view.site.id),
    siteSpaces: await allSiteSpaces(context.db, organizationId, view.site.id, spaceFilter(view.who)),
    ...(view.shareKey ? { shareKey: view.shareKey } : {}),
  };
}

async function structureFor(tx: ServiceContext, who: SiteCaller, organizationId: string, siteId: string): Promise<SiteStructure> {
  const site = (await findSite(tx.db, organizationId, siteId))!;
  return loadStructure(tx, { site, who }, organizationId);
}

/** Sections and groups directly under a group (null: the root), ordered together by position. */
function lastPositionAt(structure: SiteStructure, groupId: string | null): string | null {
  const positions = [
    ...structure.sections.filter((section) => section.group_id === groupId).map((section) => section.position),
    ...structure.groups.filter((group) => group.parent_id === groupId).map((group) => group.position),
  ].sort();
  return positions.at(-1) ?? null;
}

export async function listSiteSections(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { page?: string; limit?: number }): Promise<KeysetPage<SiteSectionRow> & { structure: SiteStructure }> {
  const { after, limit } = pageRequest(query, SECTION_ORDER_KEY_LENGTH);
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  const page = await listSectionsPage(context.db, siteId, after, limit);
  return { ...page, structure: await loadStructure(context, { site, who }, organizationId) };
}

export interface SectionView {
  id: string;
  structure: SiteStructure;
}

export async function addSectionToSite(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  body: { spaceId: string; title?: string; icon?: string | null; siteSectionGroupId?: string },
): Promise<SectionView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const space = await publishableSpace(tx, caller, organizationId, body.spaceId, 'body.spaceId');
    const before = await structureFor(tx, who, organizationId, siteId);
    const groupId = body.siteSectionGroupId ?? null;
    if (groupId !== null && !before.groups.some((group) => group.id === groupId)) throw new BadRequestError(`body.siteSectionGroupId: the site has no section group "${groupId}"`);
    const title = body.title ?? (space.title.length >= 2 ? space.title : 'Section');
    const id = newId();
    const path = uniqueSlug(slugify(title).slice(0, 90), new Set(before.sections.map((section) => section.path)));
    await insertSection(tx.db, {
      id, site_id: siteId, group_id: groupId, title: title.slice(0, 128), icon: body.icon ?? null, path, condition: null,
      is_default: before.sections.length === 0 ? 1 : 0, position: positionBetween(lastPositionAt(before, groupId), null), created_at: nowIso(),
    });
    // The first section takes in the site spaces that sat at the root of the site.
    if (before.sections.length === 0) await moveRootSiteSpacesToSection(tx.db, siteId, id);
    if (!(await siteSpaceOfSpace(tx.db, siteId, space.id))) await appendSiteSpace(tx, siteId, id, space);
    return { id, structure: await structureFor(tx, who, organizationId, siteId) };
  });
}

export async function updateSiteSectionById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  sectionId: string,
  body: { title?: string; icon?: string | null; path?: string; condition?: string | null; siteSectionGroupId?: string | null; default?: boolean },
): Promise<SectionView> {
  if (body.path !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(body.path)) {
    throw new BadRequestError('body.path must be one path segment: letters, digits, ".", "_" and "-", starting with a letter or digit');
  }
  const condition = checkedCondition(body.condition, 'body.condition');
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    const section = structure.sections.find((row) => row.id === sectionId);
    if (!section) throw new NotFoundError('The site has no section with this id');
    checkConditionClaims(site, condition, 'body.condition');
    if (body.path !== undefined && structure.sections.some((row) => row.id !== sectionId && row.path === body.path)) {
      throw new BadRequestError(`body.path: another section of this site already has the path "${body.path}"`);
    }
    if (body.default === false && section.is_default === 1) throw new BadRequestError('body.default: make another section the default instead');
    let placement = {};
    if (body.siteSectionGroupId !== undefined && body.siteSectionGroupId !== section.group_id) {
      const groupId = body.siteSectionGroupId;
      if (groupId !== null && !structure.groups.some((group) => group.id === groupId)) throw new BadRequestError(`body.siteSectionGroupId: the site has no section group "${groupId}"`);
      placement = { group_id: groupId, position: positionBetween(lastPositionAt(structure, groupId), null) };
    }
    await updateSection(tx.db, sectionId, {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.icon !== undefined ? { icon: body.icon } : {}),
      ...(body.path !== undefined ? { path: body.path } : {}),
      ...(condition !== undefined ? { condition } : {}),
      ...placement,
    });
    if (body.default === true) await setDefaultSection(tx.db, siteId, sectionId);
    return { id: sectionId, structure: await structureFor(tx, who, organizationId, siteId) };
  });
}

export async function deleteSiteSectionById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, sectionId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const section = await findSection(tx.db, siteId, sectionId);
    if (!section) return;
    await deleteSection(tx.db, sectionId);
    if (section.is_default === 1) {
      const rest = await allSections(tx.db, siteId);
      if (rest[0]) await setDefaultSection(tx.db, siteId, rest[0].id);
    }
  }, { absent: () => undefined });
}

export async function listSiteSectionGroups(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { page?: string; limit?: number }): Promise<KeysetPage<SiteSectionGroupRow> & { structure: SiteStructure }> {
  const { after, limit } = pageRequest(query, GROUP_ORDER_KEY_LENGTH);
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  const page = await listGroupsPage(context.db, siteId, after, limit);
  return { ...page, structure: await loadStructure(context, { site, who }, organizationId) };
}

export interface GroupView {
  id: string;
  structure: SiteStructure;
}

/** A group and every group above it; putting a group under any of these of its own would make a cycle. */
function groupAncestry(groups: readonly SiteSectionGroupRow[], groupId: string): Set<string> {
  const byId = new Map(groups.map((group) => [group.id, group]));
  const seen = new Set<string>();
  for (let current = byId.get(groupId); current && !seen.has(current.id); current = current.parent_id ? byId.get(current.parent_id) : undefined) seen.add(current.id);
  return seen;
}

export async function addSectionGroupToSite(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  body: { title: string; icon?: string | null; sections?: string[]; parent?: string },
): Promise<GroupView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    const parentId = body.parent ?? null;
    if (parentId !== null && !structure.groups.some((group) => group.id === parentId)) throw new BadRequestError(`body.parent: the site has no section group "${parentId}"`);
    for (const [index, sectionId] of (body.sections ?? []).entries()) {
      if (!structure.sections.some((section) => section.id === sectionId)) throw new BadRequestError(`body.sections[${index}]: the site has no section "${sectionId}"`);
    }
    const id = newId();
    await insertGroup(tx.db, { id, site_id: siteId, parent_id: parentId, title: body.title, icon: body.icon ?? null, position: positionBetween(lastPositionAt(structure, parentId), null), created_at: nowIso() });
    let last: string | null = null;
    for (const sectionId of body.sections ?? []) {
      last = positionBetween(last, null);
      await updateSection(tx.db, sectionId, { group_id: id, position: last });
    }
    return { id, structure: await structureFor(tx, who, organizationId, siteId) };
  });
}

export async function updateSiteSectionGroupById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  groupId: string,
  body: { title?: string; icon?: string | null; parentSectionGroupId?: string | null },
): Promise<GroupView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    const group = structure.groups.find((row) => row.id === groupId);
    if (!group) throw new NotFoundError('The site has no section group with this id');
    let placement = {};
    const parentId = body.parentSectionGroupId;
    if (parentId !== undefined && parentId !== group.parent_id) {
      if (parentId !== null) {
        if (!structure.groups.some((row) => row.id === parentId)) throw new BadRequestError(`body.parentSectionGroupId: the site has no section group "${parentId}"`);
        if (groupAncestry(structure.groups, parentId).has(groupId)) throw new BadRequestError('body.parentSectionGroupId: a group cannot go into itself or one of its own groups');
      }
      placement = { parent_id: parentId, position: positionBetween(lastPositionAt(structure, parentId), null) };
    }
    await updateGroup(tx.db, groupId, { ...(body.title !== undefined ? { title: body.title } : {}), ...(body.icon !== undefined ? { icon: body.icon } : {}), ...placement });
    return { id: groupId, structure: await structureFor(tx, who, organizationId, siteId) };
  });
}

export async function deleteSiteSectionGroupById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, groupId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const group = await findGroup(tx.db, siteId, groupId);
    if (!group) return;
    await deleteGroup(tx.db, siteId, groupId, group.parent_id);
  }, { absent: () => undefined });
}

export async function addSectionToGroup(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, groupId: string, body: { sectionId: string }): Promise<GroupView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    if (!structure.groups.some((group) => group.id === groupId)) throw new NotFoundError('The site has no section group with this id');
    const section = structure.sections.find((row) => row.id === body.sectionId);
    if (!section) throw new BadRequestError(`body.sectionId: the site has no section "${body.sectionId}"`);
    if (section.group_id !== groupId) {
      await updateSection(tx.db, section.id, { group_id: groupId, position: positionBetween(lastPositionAt(structure, groupId), null) });
    }
    return { id: groupId, structure: await structureFor(tx, who, organizationId, siteId) };
  });
}

export async function removeSectionFromGroup(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, groupId: string, sectionId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    const group = structure.groups.find((row) => row.id === groupId);
    const section = structure.sections.find((row) => row.id === sectionId);
    if (!group || !section || section.group_id !== groupId) return;
    // The section moves to the level the group is at, after what is there.
    const level = group.parent_id;
    await updateSection(tx.db, sectionId, { group_id: level, position: positionBetween(lastPositionAt(structure, level), null) });
  }, { absent: () => undefined });
}

// --------------------------------------------------------------------------------------- share links

export async function listSiteShareLinks(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { page?: string; limit?: number }): Promise<KeysetPage<ShareLinkRecord> & { site: SiteWithCount }> {
  const { after, limit } = pageRequest(query, SHARE_LINK_ORDER_KEY_LENGTH);
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  if (!canSeeShareKeys(who.membership)) throw new ForbiddenError('Only organization admins can see the share links of a site');
  const page = await listShareLinksPage(context.db, siteId, after, limit);
  const rows: ShareLinkRecord[] = [];
  for (const link of page.rows) rows.push(await withKey(context, link));
  return { ...page, rows, site };
}

export async function createSiteShareLink(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: { name: string }): Promise<ShareLinkRecord & { site: SiteWithCount }> {
  // 256 bits from the system's CSPRNG; sealed outside the transaction (sealing reads the server secret from the root handle).
  const key = randomBytes(32).toString('base64url');
  const id = newId();
  const sealed = await sealValue(context.db, SHARE_KEY_SEALING, key, id);
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    await insertShareLink(tx.db, { id, site_id: siteId, name: body.name, active: 1, key_hash: keyHash(key), sealed_key: sealed, created_at: nowIso() });
    return { link: (await findShareLink(tx.db, siteId, id))!, key, site };
  });
}

export async function updateSiteShareLinkById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, shareLinkId: string, body: { active?: boolean; name?: string }): Promise<ShareLinkRecord & { site: SiteWithCount }> {
  const { link, site } = await withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    const found = await findShareLink(tx.db, siteId, shareLinkId);
    if (!found) throw new NotFoundError('The site has no share link with this id');
    await updateShareLink(tx.db, shareLinkId, { ...(body.active !== undefined ? { active: body.active ? 1 : 0 } : {}), ...(body.name !== undefined ? { name: body.name } : {}) });
    return { link: (await findShareLink(tx.db, siteId, shareLinkId))!, site };
  });
  return { ...(await withKey(context, link)), site };
}

export async function deleteSiteShareLinkById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, shareLinkId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    await deleteShareLink(tx.db, siteId, shareLinkId);
  }, { absent: () => undefined });
}

// ---------------------------------------------------------------------------------- published content

export async function getPublishedContentSite(context: ServiceContext, caller: Principal, organizationId: string, siteId: string, shareKey: string | undefined): Promise<SiteStructure> {
  if (isVisitor(caller)) {
    // A visitor token reads its own site only, and in it only the sections and site spaces it sees.
    const { grant } = caller;
    if (!visitorSeesSite(grant, organizationId, siteId)) throw siteNotFound();
    const site = await findSite(context.db, organizationId, siteId);
    const key = await shareKeyOf(context, siteId, shareKey);
    if (!site || key === 'refused') throw siteNotFound();
    const outsider: SiteCaller = { membership: undefined, viewer: { userId: '', membership: undefined } };
    const structure = await loadStructure(context, { site, who: outsider, ...(key !== undefined ? { shareKey: key } : {}) }, organizationId);
    return {
      ...structure,
      sections: structure.sections.filter((section) => visitorSeesSection(grant, section.id)),
      siteSpaces: structure.siteSpaces.filter((record) => visitorSeesSiteSpace(grant, record.siteSpace)),
    };
  }
  const view = await publishedView(context, caller, organizationId, siteId, shareKey);
  return loadStructure(context, view, organizationId);
}

/**
 * For `GET /spaces/{spaceId}?shareKey=`: the site space through which the key's site publishes the space,
 * when the key is that of an active link of a published `share-link` site; undefined otherwise.
 */
export async function sharedSiteSpaceOfSpace(context: ServiceContext, spaceId: string, shareKey: string): Promise<{ site: SiteWithCount; sections: SiteSectionRow[]; siteSpace: SiteSpaceRow; shareKey: string } | undefined> {
  const link = await findShareLinkByKeyHash(context.db, keyHash(shareKey));
  if (!link || link.active !== 1) return undefined;
  const site = await findSiteById(context.db, link.site_id);
  if (!site || site.published !== 1 || site.visibility !== 'share-link') return undefined;
  const siteSpace = await siteSpaceOfSpace(context.db, site.id, spaceId);
  if (!siteSpace) return undefined;
  return { site, sections: await allSections(context.db, site.id), siteSpace, shareKey };
}

// -------------------------------------------------------------------------------------- adaptive schema

export interface AdaptiveSchemaRecord {
  jsonSchema: AdaptiveJsonSchema;
  updatedAt: string;
}

function storedSchema(site: SiteWithCount): AdaptiveSchemaRecord | undefined {
  if (site.adaptive_schema === null || site.adaptive_schema_updated_at === null) return undefined;
  return { jsonSchema: JSON.parse(site.adaptive_schema) as AdaptiveJsonSchema, updatedAt: site.adaptive_schema_updated_at };
}

export async function getSiteAdaptiveSchema(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<AdaptiveSchemaRecord> {
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  if (!canManageSites(who.membership)) throw new ForbiddenError('Only organization admins can read the adaptive schema of a site');
  const schema = storedSchema(site);
  if (!schema) throw new NotFoundError('The site has no adaptive schema');
  return schema;
}

export async function updateSiteAdaptiveSchema(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: { jsonSchema: unknown }): Promise<AdaptiveSchemaRecord> {
  let jsonSchema: AdaptiveJsonSchema;
  try {
    jsonSchema = checkAdaptiveSchema(body.jsonSchema, 'body.jsonSchema');
  } catch (error) {
    if (error instanceof AdaptiveSchemaError) throw new BadRequestError(error.message);
    throw error;
  }
  return withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const updatedAt = nowIso();
    await updateSite(tx.db, siteId, { adaptive_schema: JSON.stringify(jsonSchema), adaptive_schema_updated_at: updatedAt, updated_at: updatedAt });
    return { jsonSchema, updatedAt };
  });
}

export async function listSiteAdaptiveTemplateConditions(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<TemplateCondition[]> {
  const { site } = await readableSite(context, caller, organizationId, siteId);
  const schema = storedSchema(site);
  return schema ? templateConditions(schema.jsonSchema) : [];
}
