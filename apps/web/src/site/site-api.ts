import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@quire/api-types';
import { unwrap } from '@quire/client';
import { api, errorMessage } from '../api/client.js';

/*
 * The reads of the site screen, each under the site's own query key so that a change to one part (the
 * structure, the share links) refreshes that part and the site's facts (its count of spaces, its visibility),
 * never the customization being edited.
 */

export type Site = components['schemas']['Site'];
export type SiteVisibility = components['schemas']['SiteVisibility'];
export type SiteSpace = components['schemas']['SiteSpace'];
export type SiteSection = components['schemas']['SiteSection'];
export type SiteSectionGroup = components['schemas']['SiteSectionGroup'];
export type SiteStructure = components['schemas']['SiteStructure'];
export type SiteCustomization = components['schemas']['SiteCustomization'];
export type ShareLink = components['schemas']['ShareLink'];
export type PublishingAuth = components['schemas']['SitePublishingAuth'];

export interface SiteRef {
  organizationId: string;
  siteId: string;
}

/** Who can read a published site, said to a person (the API's own description, shortened). */
export const VISIBILITIES: Array<{ value: SiteVisibility; label: string }> = [
  { value: 'public', label: 'Public: anyone, and search engines index it' },
  { value: 'unlisted', label: 'Unlisted: anyone with its address, not indexed' },
  { value: 'share-link', label: 'Share links: only people given one of its share links' },
  { value: 'visitor-auth', label: 'Visitor authentication: visitors your own backend signs in' },
];

export const siteKey = ({ organizationId, siteId }: SiteRef) => ['organization', organizationId, 'site', siteId];
export const structureKey = (ref: SiteRef) => [...siteKey(ref), 'structure'];
export const shareLinksKey = (ref: SiteRef) => [...siteKey(ref), 'share-links'];
export const customizationKey = (ref: SiteRef) => [...siteKey(ref), 'customization'];
export const publishingAuthKey = (ref: SiteRef) => [...siteKey(ref), 'publishing-auth'];

export const sitePath = (ref: SiteRef) => ({ params: { path: { organizationId: ref.organizationId, siteId: ref.siteId } } });

export function useSite(ref: SiteRef) {
  return useQuery({ queryKey: siteKey(ref), queryFn: () => unwrap(api.GET('/orgs/{organizationId}/sites/{siteId}', sitePath(ref))) });
}

export function useSiteStructure(ref: SiteRef) {
  return useQuery({ queryKey: structureKey(ref), queryFn: () => unwrap(api.GET('/orgs/{organizationId}/sites/{siteId}/structure', sitePath(ref))) });
}

/** After a change of the structure: the structure, and the site's own facts (its default space, its count). */
export function useStructureChanged(ref: SiteRef) {
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: structureKey(ref), exact: true }),
      queryClient.invalidateQueries({ queryKey: siteKey(ref), exact: true }),
      queryClient.invalidateQueries({ queryKey: ['organization', ref.organizationId, 'sites'] }),
    ]);
  };
}

/** Every site space of a structure, wherever it sits (at the root, in sections, in groups). */
export function allSiteSpaces(structure: SiteStructure): SiteSpace[] {
  if (structure.type === 'siteSpaces') return structure.structure;
  return allSections(structure).flatMap((section) => section.siteSpaces);
}

export function allSections(structure: SiteStructure): SiteSection[] {
  if (structure.type === 'siteSpaces') return [];
  const out: SiteSection[] = [];
  const walk = (items: Array<SiteSection | SiteSectionGroup>) => {
    for (const item of items) {
      if (item.object === 'site-section') out.push(item);
      else walk(item.children);
    }
  };
  walk(structure.structure);
  return out;
}

export function allGroups(structure: SiteStructure): SiteSectionGroup[] {
  if (structure.type === 'siteSpaces') return [];
  const out: SiteSectionGroup[] = [];
  const walk = (items: Array<SiteSection | SiteSectionGroup>) => {
    for (const item of items) {
      if (item.object === 'site-section-group') {
        out.push(item);
        walk(item.children);
      }
    }
  };
  walk(structure.structure);
  return out;
}

/** What happened (the API's message) and what to do, as two sentences. */
export function explain(error: unknown, advice: string): string {
  const message = errorMessage(error).trim();
  return `${message}${/[.!?]$/.test(message) ? '' : '.'} ${advice}`;
}
