import type { components } from '@quire/api-types';
import type { SiteStructure } from '../../services/site-structure.js';
import type { SiteSectionGroupRow, SiteSectionRow } from '../../stores/site-section-store.js';
import type { PresentContext } from './context.js';
import { publishedUrl, sectionAddress } from './site-presenter.js';
import { presentSiteSpace } from './site-space-presenter.js';

export type ApiSiteSection = components['schemas']['SiteSection'];
export type ApiSiteSectionGroup = components['schemas']['SiteSectionGroup'];

export function presentSiteSection(context: PresentContext, structure: SiteStructure, section: SiteSectionRow): ApiSiteSection {
  return {
    object: 'site-section',
    id: section.id,
    title: section.title,
    default: section.is_default === 1,
    path: section.path,
    ...(section.condition !== null ? { condition: section.condition } : {}),
    ...(section.group_id ? { sectionGroup: section.group_id } : {}),
    siteSpaces: structure.siteSpaces.filter((record) => record.siteSpace.section_id === section.id)
      .map((record) => presentSiteSpace(context, structure.site, structure.sections, record, structure.shareKey)),
    ...(section.icon !== null ? { icon: section.icon } : {}),
    urls: publishedUrl(structure.site, () => sectionAddress(context, structure.site, section), structure.shareKey),
  };
}

/** The sections and groups directly under a group (null: the root of the site), in their order. */
export function childrenOf(context: PresentContext, structure: SiteStructure, groupId: string | null, seen: Set<string>): Array<ApiSiteSection | ApiSiteSectionGroup> {
  const items: Array<{ position: string; id: string; present: () => ApiSiteSection | ApiSiteSectionGroup }> = [
    ...structure.sections.filter((section) => section.group_id === groupId).map((section) => ({ position: section.position, id: section.id, present: () => presentSiteSection(context, structure, section) })),
    ...structure.groups.filter((group) => group.parent_id === groupId && !seen.has(group.id))
      .map((group) => ({ position: group.position, id: group.id, present: () => presentGroup(context, structure, group, seen) })),
  ];
  items.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : 1));
  return items.map((item) => item.present());
}

function presentGroup(context: PresentContext, structure: SiteStructure, group: SiteSectionGroupRow, seen: Set<string>): ApiSiteSectionGroup {
  // `seen` guards the walk: the service never makes a cycle, and a presenter must not loop if one were stored.
  const inner = new Set(seen).add(group.id);
  return {
    object: 'site-section-group',
    id: group.id,
    title: group.title,
    ...(group.parent_id ? { sectionGroup: group.parent_id } : {}),
    ...(group.icon !== null ? { icon: group.icon } : {}),
    children: childrenOf(context, structure, group.id, inner),
  };
}

export function presentSiteSectionGroup(context: PresentContext, structure: SiteStructure, group: SiteSectionGroupRow): ApiSiteSectionGroup {
  return presentGroup(context, structure, group, new Set());
}
