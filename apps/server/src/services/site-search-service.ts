import { BadRequestError } from '../errors.js';
import { decodeCursor, DEFAULT_LIMIT, encodeCursor, MAX_LIMIT } from '../pagination.js';
import { searchSpace, type SearchResultPage } from '../search/index.js';
import type { SiteSpaceRecord } from '../stores/site-space-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { loadStructure, memberSiteView, type SiteStructure } from './site-structure.js';

/*
 * Search of a docs site: the search of each space it publishes (search/, as searchSpaceContent), over the
 * site spaces the scope names, among those the caller sees (loadStructure keeps a member's visible site spaces
 * only), so a hidden space neither answers nor shows that it matched.
 */

/** Pages listed per space: a space's best matches, and a bound on the answer's size. */
export const PAGES_PER_SPACE = 20;

type Scope = { mode: 'default'; currentSiteSpace?: string } | { mode: 'specific'; siteSpaceIds: string[] } | { mode: 'all' };

export interface SiteSearchBody {
  query: string;
  scope?: Scope;
  mode?: 'specific' | 'current' | 'all';
  siteSpaceIds?: string[];
  siteSpaceId?: string;
}

/** The scope of the body, from the public form or the earlier one; a body with neither, or both, is 400. */
function scopeOf(body: SiteSearchBody): Scope {
  const earlier = body.mode !== undefined || body.siteSpaceIds !== undefined || body.siteSpaceId !== undefined;
  if (body.scope) {
    if (earlier) throw new BadRequestError('body: give scope, or the earlier mode and site space fields, not both');
    return body.scope;
  }
  if (body.siteSpaceIds !== undefined && (body.mode === undefined || body.mode === 'specific') && body.siteSpaceId === undefined) return { mode: 'specific', siteSpaceIds: body.siteSpaceIds };
  if (body.mode === 'current' && body.siteSpaceId !== undefined && body.siteSpaceIds === undefined) return { mode: 'default', currentSiteSpace: body.siteSpaceId };
  if (body.mode === 'all' && body.siteSpaceId === undefined && body.siteSpaceIds === undefined) return { mode: 'all' };
  throw new BadRequestError('body.scope is required: {mode: default|specific|all} (or siteSpaceIds, mode current with siteSpaceId, or mode all)');
}

/** The site spaces a scope names, in the site's order; one the site lacks or the caller cannot see is 400. */
function scopedSiteSpaces(structure: SiteStructure, scope: Scope): SiteSpaceRecord[] {
  const visible = structure.siteSpaces;
  const named = (ids: readonly string[], field: string): Set<string> => {
    for (const [index, id] of ids.entries()) {
      if (!visible.some((record) => record.siteSpace.id === id)) throw new BadRequestError(`${field}${ids.length > 1 || field.endsWith('Ids') ? `[${index}]` : ''}: the site has no site space "${id}"`);
    }
    return new Set(ids);
  };
  if (scope.mode === 'all') return visible;
  if (scope.mode === 'specific') {
    const ids = named(scope.siteSpaceIds, 'body.scope.siteSpaceIds');
    return visible.filter((record) => ids.has(record.siteSpace.id));
  }
  const current = scope.currentSiteSpace !== undefined ? named([scope.currentSiteSpace], 'body.scope.currentSiteSpace') : new Set<string>();
  // The default site space of each level (the root, or each section).
  return visible.filter((record) => record.siteSpace.is_default === 1 || current.has(record.siteSpace.id));
}

export interface SiteSearchAnswer {
  items: Array<{ record: SiteSpaceRecord; pages: SearchResultPage[] }>;
  next?: { page: string };
}

export async function searchSiteContent(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  query: { page?: string; limit?: number },
  body: SiteSearchBody,
): Promise<SiteSearchAnswer> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new BadRequestError(`query.limit must be between 1 and ${MAX_LIMIT}`);
  const [start] = query.page === undefined ? [0] : decodeCursor(query.page, 1);
  if (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0) throw new BadRequestError('query.page is not a valid page cursor');
  const scope = scopeOf(body);
  const view = await memberSiteView(context, caller, organizationId, siteId, undefined);
  const searched = scopedSiteSpaces(await loadStructure(context, view, organizationId), scope);

  // Pages of results walk the searched site spaces in order; the cursor is the next one to search.
  const items: SiteSearchAnswer['items'] = [];
  let index = start;
  for (; index < searched.length && items.length < limit; index += 1) {
    const record = searched[index]!;
    const answer = await searchSpace(context.db, record.space.id, body.query, { limit: PAGES_PER_SPACE });
    if (answer.items.length > 0) items.push({ record, pages: answer.items });
  }
  return { items, ...(index < searched.length ? { next: { page: encodeCursor([index]) } } : {}) };
}
