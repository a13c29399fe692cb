import { data } from '../api/api-failure.js';
import type { SiteData } from '../api/published-sites.js';
import { escapeHtml as e } from '../site/html.js';
import type { AssetPaths } from '../site/layout.js';
import type { SiteTree } from '../site/tree.js';
import { layoutContext } from './layout-context.js';
import { renderedPage, type RenderedPage } from './rendered-page.js';
import { markSnippet, snippetMatcher } from './search-snippet.js';

/** The site space's search page: the form, and the API's results for `query` linking to pages and sections. */
export async function searchPage(info: SiteData, tree: SiteTree, query: string, assets: AssetPaths): Promise<RenderedPage> {
  const ctx = layoutContext(info, tree, assets);
  const q = query.trim().slice(0, 512);
  let results = '';
  if (q !== '') {
    const found = await data(info.client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: info.lookup.space }, query: { query: q, limit: 50 } } }));
    const matches = snippetMatcher(q);
    const items = found.items
      .map((result) => {
        const entry = tree.byId.get(result.id) ?? tree.byPath.get(result.path);
        if (!entry || entry.hidden) return '';
        // Each section found: its heading (linking to its anchor; the text before the first heading has none)
        // and the API's snippet, plain text cut around the match, with the matched words marked.
        const sections = result.sections
          .map((section) => {
            const heading = section.id !== '' && section.title !== '' ? `<a href="${e(entry.href)}#${e(encodeURIComponent(section.id))}">${e(section.title)}</a>` : '';
            const snippet = section.body ? `<p class="snippet">${markSnippet(section.body, matches)}</p>` : '';
            return heading || snippet ? `<li>${heading}${snippet}</li>` : '';
          })
          .join('');
        const trail = result.ancestors.map((ancestor) => e(ancestor.title)).join(' › ');
        return `<li class="result"><a href="${e(entry.href)}">${e(result.title)}</a>${trail ? `<span class="trail">${trail}</span>` : ''}${sections ? `<ul>${sections}</ul>` : ''}</li>`;
      })
      .filter(Boolean);
    results = items.length ? `<ol class="results">${items.join('')}</ol>` : '<p class="no-results">No results.</p>';
  }
  const main = `<h1>Search</h1><form class="search-page" role="search" action="${e(info.lookup.basePath)}/search" method="get"><label for="search-page-q">Search this site</label> <input id="search-page-q" type="search" name="q" value="${e(q)}"> <button type="submit">Search</button></form>${q ? `<p role="status">Results for “${e(q)}”</p>` : ''}${results}`;
  return renderedPage(ctx, { title: q ? `Search: ${q}` : 'Search', main }, 200);
}
