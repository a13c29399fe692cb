import { paginate, type FetchResult } from '@quire/client';

/** Every item of a paginated list (the app's lists are small enough to hold whole). */
export async function all<T>(fetchPage: (page: string | undefined) => Promise<FetchResult<{ items: T[]; next?: { page: string } }>>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of paginate(fetchPage)) items.push(item);
  return items;
}
