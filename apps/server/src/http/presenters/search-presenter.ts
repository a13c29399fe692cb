import type { components } from '@quire/api-types';
import type { SearchResultPage } from '../../search/index.js';
import type { SpaceSearch } from '../../services/search-service.js';
import { appUrl, type PresentContext } from './context.js';
import { pageAppUrl } from './revision-presenter.js';

export type ApiSearchResult = components['schemas']['SearchResult'];
export type ApiSearchResultList = components['schemas']['SearchResultList'];

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

export function presentSearchResults(context: PresentContext, { access, answer }: SpaceSearch): ApiSearchResultList {
  const base = appUrl(context, `/o/${encodeURIComponent(access.space.organization_id)}/s/${encodeURIComponent(access.space.id)}`);
  return {
    ...(answer.next ? { next: answer.next } : {}),
    count: answer.count,
    items: answer.items.map((item) => presentSearchResult(base, item)),
  };
}
