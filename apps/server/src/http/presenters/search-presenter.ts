import type { components } from '@quire/api-types';
import type { OrganizationSearchAnswer, SearchResultPage } from '../../search/index.js';
import type { SpaceSearch } from '../../services/search-service.js';
import type { SiteSearchAnswer } from '../../services/site-search-service.js';
import { appUrl, type PresentContext } from './context.js';
import { pageAppUrl } from './revision-presenter.js';

export type ApiSearchResult = components['schemas']['SearchResult'];
export type ApiSearchResultList = components['schemas']['SearchResultList'];
export type ApiSiteSearchResultList = components['schemas']['SiteSearchResultList'];
export type ApiSearchSpaceResultList = components['schemas']['SearchSpaceResultList'];

function presentSearchResult(base: string, result: SearchResultPage): ApiSearchResult {
  const page = pageAppUrl(base, result);
  return {
    id: result.id,
    title: result.title,
    path: result.path,
    sections: result.sections.map((section) => ({
      id: section.id,
      title: section.title,
      path: section.path,
      body: section.body,
      urls: { app: section.id ? `${page}#${encodeURIComponent(section.id)}` : page },
    })),
    ancestors: result.ancestors,
    urls: { app: page },
  };
}

/** The app's address of a space, under which its pages' addresses are made. */
function spaceBase(context: PresentContext, space: { organization_id: string; id: string }): string {
  return appUrl(context, `/o/${encodeURIComponent(space.organization_id)}/s/${encodeURIComponent(space.id)}`);
}

export function presentSearchResults(context: PresentContext, { access, answer }: SpaceSearch): ApiSearchResultList {
  const base = spaceBase(context, access.space);
  return {
    ...(answer.next ? { next: answer.next } : {}),
    count: answer.count,
    items: answer.items.map((item) => presentSearchResult(base, item)),
  };
}

/** A site's search: one item per space with matches, its pages presented as a space's search presents them. */
export function presentSiteSearchResults(context: PresentContext, answer: SiteSearchAnswer): ApiSiteSearchResultList {
  return {
    ...(answer.next ? { next: answer.next } : {}),
    items: answer.items.map(({ record, pages }) => {
      const base = spaceBase(context, record.space);
      return { id: record.space.id, title: record.space.title, pages: pages.map((page) => presentSearchResult(base, page)) };
    }),
  };
}

export function presentOrganizationSearchResults(context: PresentContext, { organizationId, answer }: { organizationId: string; answer: OrganizationSearchAnswer }): ApiSearchSpaceResultList {
  return {
    ...(answer.next ? { next: answer.next } : {}),
    count: answer.count,
    items: answer.items.map((space) => {
      const base = spaceBase(context, { organization_id: organizationId, id: space.id });
      return { id: space.id, title: space.title, pages: space.pages.map((page) => presentSearchResult(base, page)) };
    }),
  };
}
