import { BadRequestError } from '../errors.js';
import { siteSectionGroups, siteSections } from '../stores/site-section-store.js';
import { siteSpacesAtLevel, updateSiteSpace, type SiteSpaceRow } from '../stores/site-space-store.js';
import type { ServiceContext } from './context.js';
import { positionBetween } from './position-keys.js';
import { groupAncestry, type SiteStructure } from './site-structure.js';

/*
 * Placing one item among its siblings (site spaces of a level, or the sections and groups of a level, which
 * share one order). Callers hold the site's lock (withManagedSite), so concurrent moves are applied one after
 * the other and each reads the order the previous one left.
 */

/** A sibling in its order, and how to write its position. */
export interface Sibling {
  kind: string;
  id: string;
  position: string;
  setPosition(position: string): Promise<void>;
}

export interface MovePosition<Pointer> {
  before?: Pointer;
  after?: Pointer;
}

export function oneSide<Pointer>(position: MovePosition<Pointer> | undefined): { pointer?: Pointer; before: boolean } {
  if (position?.before && position.after) throw new BadRequestError('body.position gives either before or after, not both');
  return position?.before ? { pointer: position.before, before: true } : position?.after ? { pointer: position.after, before: false } : { before: false };
}

export function byPosition(a: { position: string; id: string }, b: { position: string; id: string }): number {
  return a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The position for an item going to `index` among `siblings` (in their order, the item itself left out).
 * Siblings that share a position (two levels joined when a group was deleted) are first given positions of
 * their own in the order they are shown, so that no two items of a level stand in one place.
 */
export async function positionAt(siblings: readonly Sibling[], index: number): Promise<string> {
  const ordered = [...siblings].sort(byPosition);
  const tied = ordered.some((sibling, i) => i > 0 && ordered[i - 1]!.position >= sibling.position);
  if (tied) {
    let last: string | null = null;
    for (const sibling of ordered) {
      last = positionBetween(last, null);
      sibling.position = last;
      await sibling.setPosition(last);
    }
  }
  return positionBetween(ordered[index - 1]?.position ?? null, ordered[index]?.position ?? null);
}

/** Where the item goes: before or after the sibling the pointer names, else last; a pointer to none is 400. */
export function indexOf(siblings: readonly Sibling[], target: { kind: string; id: string } | undefined, before: boolean): number {
  const ordered = [...siblings].sort(byPosition);
  if (!target) return ordered.length;
  const at = ordered.findIndex((sibling) => sibling.kind === target.kind && sibling.id === target.id);
  if (at < 0) throw new BadRequestError(`body.position: "${target.id}" is not another ${target.kind} of the same level`);
  return before ? at : at + 1;
}

// ------------------------------------------------------------------ the moves of each kind of item

/** A site space among the site spaces of its own level (site spaces never change level by a move). */
export async function placeSiteSpace(tx: ServiceContext, siteId: string, siteSpace: SiteSpaceRow, target: string | undefined, before: boolean): Promise<void> {
  const siblings: Sibling[] = (await siteSpacesAtLevel(tx.db, siteId, siteSpace.section_id)).filter((row) => row.id !== siteSpace.id)
    .map((row) => ({ kind: 'site-space', id: row.id, position: row.position, setPosition: (position) => updateSiteSpace(tx.db, row.id, { position }) }));
  const position = await positionAt(siblings, indexOf(siblings, target === undefined ? undefined : { kind: 'site-space', id: target }, before));
  await updateSiteSpace(tx.db, siteSpace.id, { position });
}

export type PlacedKind = 'site-section' | 'site-section-group';

/** The sections and groups directly under a group (null: the root), which share one order. */
function levelOf(tx: ServiceContext, structure: SiteStructure, level: string | null): Sibling[] {
  return [
    ...structure.sections.filter((row) => row.group_id === level)
      .map((row): Sibling => ({ kind: 'site-section', id: row.id, position: row.position, setPosition: (position) => siteSections.update(tx.db, row.id, { position }) })),
    ...structure.groups.filter((row) => row.parent_id === level)
      .map((row): Sibling => ({ kind: 'site-section-group', id: row.id, position: row.position, setPosition: (position) => siteSectionGroups.update(tx.db, row.id, { position }) })),
  ];
}

/** The group a section or group sits in (null: the root); undefined when the site has no such item. */
function placeOf(structure: SiteStructure, item: { kind: PlacedKind; id: string }): { level: string | null } | undefined {
  const row = item.kind === 'site-section' ? structure.sections.find((section) => section.id === item.id) : structure.groups.find((group) => group.id === item.id);
  if (!row) return undefined;
  return { level: 'group_id' in row ? row.group_id : row.parent_id };
}

/**
 * A section or group placed before or after another section or group, going into that one's level (the
 * item's own level when `sameLevel`), or last at its own level without a target. The item must be the
 * site's (the caller answers 404 otherwise); a target the site does not have, or a level that would put a
 * group inside itself, is 400.
 */
export async function placeSectionOrGroup(
  tx: ServiceContext,
  structure: SiteStructure,
  item: { kind: PlacedKind; id: string },
  target: { kind: PlacedKind; id: string } | undefined,
  before: boolean,
  options: { sameLevel: boolean },
): Promise<void> {
  const current = placeOf(structure, item)!;
  let level = current.level;
  if (target) {
    const place = placeOf(structure, target);
    if (!place || (options.sameLevel && place.level !== current.level)) throw new BadRequestError(`body.position: "${target.id}" is not a ${target.kind} of ${options.sameLevel ? 'the same level' : 'this site'}`);
    if (target.kind === item.kind && target.id === item.id) throw new BadRequestError('body.position: an item cannot go before or after itself');
    level = place.level;
  }
  if (item.kind === 'site-section-group' && level !== null && groupAncestry(structure.groups, level).has(item.id)) {
    throw new BadRequestError('body.position: a group cannot go into itself or one of its own groups');
  }
  const siblings = levelOf(tx, structure, level).filter((sibling) => !(sibling.kind === item.kind && sibling.id === item.id));
  const position = await positionAt(siblings, indexOf(siblings, target, before));
  if (item.kind === 'site-section') await siteSections.update(tx.db, item.id, { group_id: level, position });
  else await siteSectionGroups.update(tx.db, item.id, { parent_id: level, position });
}
