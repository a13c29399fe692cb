import { allSiteSpaces, type SiteSpaceRecord } from '../stores/site-space-store.js';
import { siteSectionGroups, siteSections, type SiteSectionGroupRow, type SiteSectionRow } from '../stores/site-section-store.js';
import { findSite, type SiteWithCount } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import { readableSite, siteNotFound, spaceFilter, type SiteCaller } from './site-access.js';
import { shareKeyOf } from './site-share-link-service.js';
import type { ServiceContext } from './context.js';

/** Everything of a site's structure, read at once (a site holds tens of items, not thousands). */
export interface SiteStructure {
  site: SiteWithCount;
  sections: SiteSectionRow[];
  groups: SiteSectionGroupRow[];
  siteSpaces: SiteSpaceRecord[];
  shareKey?: string;
}

/** A site as one caller reads it: who they are and the share key the answer's URLs carry. */
export interface SiteView {
  site: SiteWithCount;
  who: SiteCaller;
  shareKey?: string;
}

export async function loadStructure(context: ServiceContext, view: SiteView, organizationId: string): Promise<SiteStructure> {
  return {
    site: view.site,
    sections: await siteSections.all(context.db, view.site.id),
    groups: await siteSectionGroups.all(context.db, view.site.id),
    siteSpaces: await allSiteSpaces(context.db, organizationId, view.site.id, spaceFilter(view.who)),
    ...(view.shareKey ? { shareKey: view.shareKey } : {}),
  };
}

/** The structure as it is now in the transaction, after a change. */
export async function structureFor(tx: ServiceContext, who: SiteCaller, organizationId: string, siteId: string): Promise<SiteStructure> {
  const site = (await findSite(tx.db, organizationId, siteId))!;
  return loadStructure(tx, { site, who }, organizationId);
}

/** The last position among the sections and groups directly under a group (null: the root), which share one order. */
export function lastPositionAt(structure: SiteStructure, groupId: string | null): string | null {
  const positions = [
    ...structure.sections.filter((section) => section.group_id === groupId).map((section) => section.position),
    ...structure.groups.filter((group) => group.parent_id === groupId).map((group) => group.position),
  ].sort();
  return positions.at(-1) ?? null;
}

/** A group and every group above it; putting a group under any of these of its own would make a cycle. */
export function groupAncestry(groups: readonly SiteSectionGroupRow[], groupId: string): Set<string> {
  const byId = new Map(groups.map((group) => [group.id, group]));
  const seen = new Set<string>();
  for (let current = byId.get(groupId); current && !seen.has(current.id); current = current.parent_id ? byId.get(current.parent_id) : undefined) seen.add(current.id);
  return seen;
}

/**
 * A site its organization's member reads, with the share key its answer's URLs carry; a key that is not an
 * active link's of this site answers 404 like an unknown site, as the published reads do.
 */
export async function memberSiteView(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, shareKey: string | undefined): Promise<SiteView> {
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  const key = await shareKeyOf(context, siteId, shareKey);
  if (key === 'refused') throw siteNotFound();
  return { site, who, ...(key !== undefined ? { shareKey: key } : {}) };
}
