import { slugify, uniqueSlug } from '../content/tree.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { canViewContent } from '../policies/visibility-policy.js';
import type { KeysetPage } from '../stores/keyset.js';
import { siteSections, type SiteSectionRow } from '../stores/site-section-store.js';
import {
  deleteSiteSpace,
  findSiteSpace,
  findSiteSpaceRecord,
  insertSiteSpace,
  listSiteSpacesPage,
  setDefaultSiteSpace,
  SITE_SPACE_ORDER_KEY_LENGTH,
  siteSpaceOfSpace,
  siteSpacesAtLevel,
  updateSiteSpace,
  type SiteSpaceRecord,
  type SiteSpaceRow,
} from '../stores/site-space-store.js';
import { findSite, type SiteWithCount } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { positionBetween } from './position-keys.js';
import { oneSide, placeSiteSpace } from './site-structure-moves.js';
import { publishableSpace, spaceFilter, withManagedSite, type SiteCaller } from './site-access.js';
import { checkConditionClaims, checkedCondition, checkPathSegment } from './site-input-checks.js';
import { publishedView } from './site-published-service.js';

/*
 * Site spaces: the spaces a docs site publishes, at its root or in its sections. Each level (the root, or a
 * section) has one default site space, the first one until another is chosen. Positions are fractional keys
 * made in a transaction that holds the site's lock (withManagedSite).
 */

export function siteSpaceNotFound(): NotFoundError {
  return new NotFoundError('The site has no site space with this id');
}

/** A site space of the site, to change; 404 when the site has none with this id. */
export async function requireSiteSpace(tx: ServiceContext, siteId: string, siteSpaceId: string): Promise<SiteSpaceRow> {
  const siteSpace = await findSiteSpace(tx.db, siteId, siteSpaceId);
  if (!siteSpace) throw siteSpaceNotFound();
  return siteSpace;
}

/**
 * A site space whose space the member sees (visibility-policy's rule, which the store's role on the space
 * follows); one they cannot see answers 404 exactly like a missing one, as the space itself would.
 */
export async function visibleSiteSpace(context: ServiceContext, who: SiteCaller, organizationId: string, siteId: string, siteSpaceId: string): Promise<SiteSpaceRecord> {
  const record = await findSiteSpaceRecord(context.db, organizationId, siteId, siteSpaceId, who.viewer);
  if (!record || !canViewContent(record.role)) throw siteSpaceNotFound();
  return record;
}

/** A path for a new site space, from the space's title, unique at its level. */
function newSiteSpacePath(title: string, taken: readonly SiteSpaceRow[]): string {
  return uniqueSlug(slugify(title || 'space').slice(0, 90), new Set(taken.map((row) => row.path)));
}

/** Publishes a space last at a level of the site; a space the site publishes already answers 409. */
export async function appendSiteSpace(tx: ServiceContext, siteId: string, sectionId: string | null, space: { id: string; title: string }): Promise<string> {
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

export interface SiteSpacePage extends KeysetPage<SiteSpaceRecord> {
  site: SiteWithCount;
  sections: SiteSectionRow[];
  shareKey?: string;
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
  return { ...page, site: view.site, sections: await siteSections.all(context.db, siteId), ...(view.shareKey ? { shareKey: view.shareKey } : {}) };
}

/** A site space with what its presentation needs (its site and the site's sections, for its address). */
export interface SiteSpaceView {
  record: SiteSpaceRecord;
  site: SiteWithCount;
  sections: SiteSectionRow[];
}

export async function siteSpaceView(tx: ServiceContext, who: SiteCaller, organizationId: string, siteId: string, siteSpaceId: string): Promise<SiteSpaceView> {
  const record = await findSiteSpaceRecord(tx.db, organizationId, siteId, siteSpaceId, who.viewer);
  if (!record) throw siteSpaceNotFound();
  return { record, site: (await findSite(tx.db, organizationId, siteId))!, sections: await siteSections.all(tx.db, siteId) };
}

export async function addSpaceToSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: { spaceId: string; sectionId?: string }): Promise<SiteSpaceView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const space = await publishableSpace(tx, caller, organizationId, body.spaceId, 'body.spaceId');
    let sectionId: string | null = null;
    if (body.sectionId !== undefined) {
      const section = await siteSections.find(tx.db, siteId, body.sectionId);
      if (!section) throw new BadRequestError(`body.sectionId: the site has no section "${body.sectionId}"`);
      sectionId = section.id;
    } else {
      const sections = await siteSections.all(tx.db, siteId);
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
  checkPathSegment(body.path, 'body.path');
  const condition = checkedCondition(body.condition, 'body.condition');
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site, who) => {
    const siteSpace = await requireSiteSpace(tx, siteId, siteSpaceId);
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
  const { pointer, before } = oneSide(body?.position);
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const siteSpace = await requireSiteSpace(tx, siteId, siteSpaceId);
    await placeSiteSpace(tx, siteId, siteSpace, pointer?.siteSpace, before);
    return siteSpaceView(tx, who, organizationId, siteId, siteSpace.id);
  });
}
