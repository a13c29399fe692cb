import { slugify, uniqueSlug } from '../content/tree.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import type { KeysetPage } from '../stores/keyset.js';
import { deleteGroup, deleteSection, setDefaultSection, siteSectionGroups, siteSections, type SiteSectionGroupRow, type SiteSectionRow } from '../stores/site-section-store.js';
import { moveRootSiteSpacesToSection } from '../stores/site-space-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { positionBetween } from './position-keys.js';
import { publishableSpace, withManagedSite } from './site-access.js';
import { checkConditionClaims, checkedCondition, checkPathSegment } from './site-input-checks.js';
import { appendSiteSpace } from './site-space-service.js';
import { oneSide, placeSectionOrGroup, type MovePosition } from './site-structure-moves.js';
import { groupAncestry, loadStructure, lastPositionAt, memberSiteView, structureFor, type SiteStructure } from './site-structure.js';

/*
 * Sections and section groups of docs sites. A site with sections has one default section; section groups
 * gather sections and other groups, and the sections and groups of one level share one order of fractional
 * positions, made in a transaction that holds the site's lock (withManagedSite).
 */

/** A section or group just written, with the structure its answer is presented from. */
export interface StructureItemView {
  id: string;
  structure: SiteStructure;
}

async function listWithStructure<Row>(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, shareKey: string | undefined, page: (db: ServiceContext['db']) => Promise<KeysetPage<Row>>): Promise<KeysetPage<Row> & { structure: SiteStructure }> {
  const view = await memberSiteView(context, caller, organizationId, siteId, shareKey);
  return { ...(await page(context.db)), structure: await loadStructure(context, view, organizationId) };
}

function noSuchGroup(field: string, groupId: string): BadRequestError {
  return new BadRequestError(`${field}: the site has no section group "${groupId}"`);
}

// ------------------------------------------------------------------------------------------ sections

export async function listSiteSections(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { page?: string; limit?: number; shareKey?: string }): Promise<KeysetPage<SiteSectionRow> & { structure: SiteStructure }> {
  const { after, limit } = pageRequest(query, siteSections.orderKeyLength);
  return listWithStructure(context, caller, organizationId, siteId, query.shareKey, (db) => siteSections.page(db, siteId, after, limit));
}

export async function addSectionToSite(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  body: { spaceId: string; title?: string; icon?: string | null; siteSectionGroupId?: string },
): Promise<StructureItemView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const space = await publishableSpace(tx, caller, organizationId, body.spaceId, 'body.spaceId');
    const before = await structureFor(tx, who, organizationId, siteId);
    const groupId = body.siteSectionGroupId ?? null;
    if (groupId !== null && !before.groups.some((group) => group.id === groupId)) throw noSuchGroup('body.siteSectionGroupId', groupId);
    const title = body.title ?? (space.title.length >= 2 ? space.title : 'Section');
    const id = newId();
    const path = uniqueSlug(slugify(title).slice(0, 90), new Set(before.sections.map((section) => section.path)));
    await siteSections.insert(tx.db, {
      id, site_id: siteId, group_id: groupId, title: title.slice(0, 128), icon: body.icon ?? null, path, condition: null,
      is_default: before.sections.length === 0 ? 1 : 0, position: positionBetween(lastPositionAt(before, groupId), null), created_at: nowIso(),
    });
    // The first section takes in the site spaces that sat at the root of the site.
    if (before.sections.length === 0) await moveRootSiteSpacesToSection(tx.db, siteId, id);
    // A space the site publishes already answers 409, as addSpaceToSite does; the transaction undoes the section.
    await appendSiteSpace(tx, siteId, id, space);
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
): Promise<StructureItemView> {
  checkPathSegment(body.path, 'body.path');
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
      if (groupId !== null && !structure.groups.some((group) => group.id === groupId)) throw noSuchGroup('body.siteSectionGroupId', groupId);
      placement = { group_id: groupId, position: positionBetween(lastPositionAt(structure, groupId), null) };
    }
    await siteSections.update(tx.db, sectionId, {
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
    const section = await siteSections.find(tx.db, siteId, sectionId);
    if (!section) return;
    await deleteSection(tx.db, sectionId);
    if (section.is_default === 1) {
      const rest = await siteSections.all(tx.db, siteId);
      if (rest[0]) await setDefaultSection(tx.db, siteId, rest[0].id);
    }
  }, { absent: () => undefined });
}

// ------------------------------------------------------------------------------------ section groups

export async function listSiteSectionGroups(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { page?: string; limit?: number }): Promise<KeysetPage<SiteSectionGroupRow> & { structure: SiteStructure }> {
  const { after, limit } = pageRequest(query, siteSectionGroups.orderKeyLength);
  return listWithStructure(context, caller, organizationId, siteId, undefined, (db) => siteSectionGroups.page(db, siteId, after, limit));
}

function groupNotFound(): NotFoundError {
  return new NotFoundError('The site has no section group with this id');
}

export async function addSectionGroupToSite(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  body: { title: string; icon?: string | null; sections?: string[]; parent?: string },
): Promise<StructureItemView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    const parentId = body.parent ?? null;
    if (parentId !== null && !structure.groups.some((group) => group.id === parentId)) throw noSuchGroup('body.parent', parentId);
    for (const [index, sectionId] of (body.sections ?? []).entries()) {
      if (!structure.sections.some((section) => section.id === sectionId)) throw new BadRequestError(`body.sections[${index}]: the site has no section "${sectionId}"`);
    }
    const id = newId();
    await siteSectionGroups.insert(tx.db, { id, site_id: siteId, parent_id: parentId, title: body.title, icon: body.icon ?? null, position: positionBetween(lastPositionAt(structure, parentId), null), created_at: nowIso() });
    let last: string | null = null;
    for (const sectionId of body.sections ?? []) {
      last = positionBetween(last, null);
      await siteSections.update(tx.db, sectionId, { group_id: id, position: last });
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
): Promise<StructureItemView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    const group = structure.groups.find((row) => row.id === groupId);
    if (!group) throw groupNotFound();
    let placement = {};
    const parentId = body.parentSectionGroupId;
    if (parentId !== undefined && parentId !== group.parent_id) {
      if (parentId !== null) {
        if (!structure.groups.some((row) => row.id === parentId)) throw noSuchGroup('body.parentSectionGroupId', parentId);
        if (groupAncestry(structure.groups, parentId).has(groupId)) throw new BadRequestError('body.parentSectionGroupId: a group cannot go into itself or one of its own groups');
      }
      placement = { parent_id: parentId, position: positionBetween(lastPositionAt(structure, parentId), null) };
    }
    await siteSectionGroups.update(tx.db, groupId, { ...(body.title !== undefined ? { title: body.title } : {}), ...(body.icon !== undefined ? { icon: body.icon } : {}), ...placement });
    return { id: groupId, structure: await structureFor(tx, who, organizationId, siteId) };
  });
}

export async function deleteSiteSectionGroupById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, groupId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const group = await siteSectionGroups.find(tx.db, siteId, groupId);
    if (!group) return;
    await deleteGroup(tx.db, siteId, groupId, group.parent_id);
  }, { absent: () => undefined });
}

export async function addSectionToGroup(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, groupId: string, body: { sectionId: string }): Promise<StructureItemView> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    if (!structure.groups.some((group) => group.id === groupId)) throw groupNotFound();
    const section = structure.sections.find((row) => row.id === body.sectionId);
    if (!section) throw new BadRequestError(`body.sectionId: the site has no section "${body.sectionId}"`);
    if (section.group_id !== groupId) {
      await siteSections.update(tx.db, section.id, { group_id: groupId, position: positionBetween(lastPositionAt(structure, groupId), null) });
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
    await siteSections.update(tx.db, sectionId, { group_id: level, position: positionBetween(lastPositionAt(structure, level), null) });
  }, { absent: () => undefined });
}

// ------------------------------------------------------------------------- moves (deprecated forms)

/** Moves a section or group within its level; the public API keeps these forms beside sortSiteStructure. */
async function moveWithinLevel(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  item: { kind: 'site-section' | 'site-section-group'; id: string },
  position: MovePosition<{ kind: 'site-section' | 'site-section-group'; id: string }> | undefined,
): Promise<StructureItemView> {
  const { pointer, before } = oneSide(position);
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who) => {
    const structure = await structureFor(tx, who, organizationId, siteId);
    const rows: ReadonlyArray<{ id: string }> = item.kind === 'site-section' ? structure.sections : structure.groups;
    if (!rows.some((row) => row.id === item.id)) throw item.kind === 'site-section' ? new NotFoundError('The site has no section with this id') : groupNotFound();
    await placeSectionOrGroup(tx, structure, item, pointer, before, { sameLevel: true });
    return { id: item.id, structure: await structureFor(tx, who, organizationId, siteId) };
  });
}

type SectionPointer = { type: 'site-section'; siteSection: string };

export async function moveSiteSection(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, sectionId: string, body: { position?: MovePosition<SectionPointer> } | undefined): Promise<StructureItemView> {
  const toItem = (pointer: SectionPointer | undefined) => (pointer ? { kind: 'site-section' as const, id: pointer.siteSection } : undefined);
  const position = body?.position ? { before: toItem(body.position.before), after: toItem(body.position.after) } : undefined;
  return moveWithinLevel(context, caller, organizationId, siteId, { kind: 'site-section', id: sectionId }, position);
}

type GroupPointer = { type: 'site-section' | 'site-section-group'; id: string };

export async function moveSiteSectionGroup(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, groupId: string, body: { position?: MovePosition<GroupPointer> } | undefined): Promise<StructureItemView> {
  const toItem = (pointer: GroupPointer | undefined) => (pointer ? { kind: pointer.type, id: pointer.id } : undefined);
  const position = body?.position ? { before: toItem(body.position.before), after: toItem(body.position.after) } : undefined;
  return moveWithinLevel(context, caller, organizationId, siteId, { kind: 'site-section-group', id: groupId }, position);
}
