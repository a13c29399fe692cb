import type { FetchResult } from './errors.js';
import { unwrap } from './errors.js';

interface Page<T> {
  items: T[];
  next?: { page: string };
}

/**
 * Iterates over every item of a paginated list, following `next.page` until the last page.
 *
 *   for await (const space of paginate((page) =>
 *     client.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId }, query: { page, limit: 100 } } }))) { ... }
 *
 * A failed page throws `QuireApiError`.
 */
export async function* paginate<T>(fetchPage: (page: string | undefined) => Promise<FetchResult<Page<T>>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await unwrap(fetchPage(cursor));
    yield* page.items;
    cursor = page.next?.page;
  } while (cursor !== undefined);
}
