import { CorruptContentError } from '../content/errors.js';
import type { ObjectReader, PageObject, TreeObject } from '../content/objects.js';
import { searchPageInput, type SearchPageInput } from './search-index.js';

/*
 * What a reindex must look at when a space moves from one revision to another, found by comparing the two
 * content-addressed trees (content/objects.ts) instead of walking the new one. A page's search rows depend on
 * its own object (title, slug, type, content) and on where it sits: its path (its parent's path) and the
 * titles of the pages above it. A subtree whose hash is unchanged and whose place (parent path and ancestor
 * titles) is unchanged therefore has exactly the same rows, and is skipped without being read; so an edit of
 * one page reads that page, its ancestors and their lists of children, whatever the size of the space.
 *
 * Children are compared per parent: the hashes both lists share are skipped (when the place is the same),
 * the others are read and paired by page id. A page found only in the new list (added, or moved in from
 * elsewhere) is taken with its whole subtree; one found only in the old list (deleted, or moved away) gives
 * the ids of its subtree as pages that may be gone. The result is a superset of what changed (an ancestor
 * whose only change is its list of children is listed too): the reindex compares each listed page's hash with
 * the stored one, as the full walk does, and writes the same rows.
 */

/** The place of a list of children: the path they extend and the titles above them. */
interface Place {
  parentPath: string;
  ancestors: readonly string[];
}

export interface SearchTreeChanges {
  /** Pages of the new tree to compare with their stored rows, in tree order (the order rows are written in). */
  pages: SearchPageInput[];
  /** Ids of pages that had a place in the old tree and are not an indexed page of the new one. */
  removed: string[];
  /** Tree objects read (roots and pages), for benchmarks. */
  objectsRead: number;
}

/** A page of the new tree the comparison lists, and the ones listed below it (for the tree order). */
interface Listed {
  page: SearchPageInput | undefined;
  below: Listed[];
}

type Work =
  | {
    kind: 'compare'; oldHashes: readonly string[]; oldPlace: Place; newHashes: readonly string[]; newPlace: Place; into: Listed[];
    /** The hashes of each list the other lacks, in order (set by hashesToRead; all of them when the place changed). */
    differing?: { oldHashes: readonly string[]; newHashes: readonly string[] };
  }
  | { kind: 'added'; hashes: readonly string[]; place: Place; into: Listed[] }
  | { kind: 'removed'; hashes: readonly string[] };

const TOP: Place = { parentPath: '', ancestors: [] };

/**
 * The pages to reindex when the tree below `oldRoot` becomes the tree below `newRoot`. Reads level by level,
 * one `getMany` per level of depth that holds a change. `readMarkdown` is called only for pages whose rows
 * are rewritten (see SearchPageInput).
 */
export async function searchChangesBetween(
  reader: ObjectReader,
  oldRoot: string,
  newRoot: string,
  readMarkdown: (contentHash: string) => Promise<string>,
): Promise<SearchTreeChanges> {
  const top: Listed[] = [];
  const removedIds = new Set<string>();
  const listedIds = new Set<string>();
  let objectsRead = 0;
  if (oldRoot === newRoot) return { pages: [], removed: [], objectsRead };

  const roots = await reader.getMany([oldRoot, newRoot]);
  objectsRead += 2;
  const oldTree = roots.get(oldRoot);
  const newTree = roots.get(newRoot);
  if (oldTree?.kind !== 'root') throw new CorruptContentError(`Tree root ${oldRoot} is missing`);
  if (newTree?.kind !== 'root') throw new CorruptContentError(`Tree root ${newRoot} is missing`);

  let level: Work[] = [{ kind: 'compare', oldHashes: oldTree.pages, oldPlace: TOP, newHashes: newTree.pages, newPlace: TOP, into: top }];
  while (level.length > 0) {
    const wanted = level.flatMap(hashesToRead);
    const objects = wanted.length > 0 ? await reader.getMany(wanted) : new Map<string, TreeObject>();
    objectsRead += wanted.length;
    const next: Work[] = [];
    const list = (object: PageObject, place: Place, into: Listed[]): Listed => {
      const view = pageView(object, place);
      const listed: Listed = { page: undefined, below: [] };
      if (view.indexed) {
        listed.page = searchPageInput({ id: object.id, title: object.title, path: view.path!, contentHash: object.content }, place.ancestors, readMarkdown);
        listedIds.add(object.id);
      } else {
        removedIds.add(object.id);
      }
      into.push(listed);
      return listed;
    };

    for (const work of level) {
      if (work.kind === 'removed') {
        for (const hash of work.hashes) {
          const object = pageObject(objects, hash);
          removedIds.add(object.id);
          if (object.type !== 'link' && object.children.length > 0) next.push({ kind: 'removed', hashes: object.children });
        }
        continue;
      }
      if (work.kind === 'added') {
        for (const hash of work.hashes) {
          const object = pageObject(objects, hash);
          const listed = list(object, work.place, work.into);
          if (object.type !== 'link' && object.children.length > 0) {
            next.push({ kind: 'added', hashes: object.children, place: pageView(object, work.place).childPlace, into: listed.below });
          }
        }
        continue;
      }

      const differing = work.differing!;
      const oldById = new Map<string, PageObject>();
      for (const hash of differing.oldHashes) {
        const object = pageObject(objects, hash);
        oldById.set(object.id, object);
      }
      for (const hash of differing.newHashes) {
        const object = pageObject(objects, hash);
        const listed = list(object, work.newPlace, work.into);
        const old = oldById.get(object.id);
        oldById.delete(object.id);
        const newChildren = object.type === 'link' ? [] : object.children;
        const newPlace = pageView(object, work.newPlace).childPlace;
        if (old === undefined) {
          if (newChildren.length > 0) next.push({ kind: 'added', hashes: newChildren, place: newPlace, into: listed.below });
          continue;
        }
        const oldChildren = old.type === 'link' ? [] : old.children;
        if (oldChildren.length === 0 && newChildren.length === 0) continue;
        next.push({ kind: 'compare', oldHashes: oldChildren, oldPlace: pageView(old, work.oldPlace).childPlace, newHashes: newChildren, newPlace, into: listed.below });
      }
      // Old pages not paired here were deleted or moved away: their subtrees' ids may be gone.
      for (const old of oldById.values()) {
        removedIds.add(old.id);
        if (old.type !== 'link' && old.children.length > 0) next.push({ kind: 'removed', hashes: old.children });
      }
    }
    level = next;
  }

  const pages: SearchPageInput[] = [];
  const flatten = (items: readonly Listed[]): void => {
    for (const item of items) {
      if (item.page) pages.push(item.page);
      flatten(item.below);
    }
  };
  flatten(top);
  // A page moved elsewhere is listed at its new place: it is not gone.
  const removed = [...removedIds].filter((id) => !listedIds.has(id));
  return { pages, removed, objectsRead };
}

/**
 * The hashes a step of the comparison reads: all of an added or removed list, the differing ones of a pair
 * (recorded in `differing`, so that the lists are compared once).
 */
function hashesToRead(work: Work): readonly string[] {
  if (work.kind !== 'compare') return work.hashes;
  work.differing = samePlaceAs(work.oldPlace, work.newPlace)
    ? differingHashes(work.oldHashes, work.newHashes)
    : { oldHashes: work.oldHashes, newHashes: work.newHashes };
  return [...work.differing.newHashes, ...work.differing.oldHashes];
}

/**
 * The hashes of each list of children the other lacks, in order. An edit usually changes one entry, or
 * inserts or removes a few: the lists agree up to the first difference and from the last one, so only the
 * part in between is compared through sets (the top level of a large space lists thousands of pages).
 */
function differingHashes(oldHashes: readonly string[], newHashes: readonly string[]): { oldHashes: string[]; newHashes: string[] } {
  let start = 0;
  while (start < oldHashes.length && start < newHashes.length && oldHashes[start] === newHashes[start]) start++;
  let oldEnd = oldHashes.length;
  let newEnd = newHashes.length;
  while (oldEnd > start && newEnd > start && oldHashes[oldEnd - 1] === newHashes[newEnd - 1]) {
    oldEnd--;
    newEnd--;
  }
  const oldMiddle = oldHashes.slice(start, oldEnd);
  const newMiddle = newHashes.slice(start, newEnd);
  const inOld = new Set(oldMiddle);
  const inNew = new Set(newMiddle);
  return { oldHashes: oldMiddle.filter((hash) => !inNew.has(hash)), newHashes: newMiddle.filter((hash) => !inOld.has(hash)) };
}

function pageObject(objects: ReadonlyMap<string, TreeObject>, hash: string): PageObject {
  const object = objects.get(hash);
  if (object?.kind !== 'page') throw new CorruptContentError(`Page object ${hash} is missing`);
  return object;
}

/**
 * A page at a place as the full walk sees it (content/tree.ts `materialize`, search-index.ts `searchPagesOf`):
 * its path (none for a link), whether it is indexed (documents and computed pages with a path), and the place
 * of its children.
 */
function pageView(object: PageObject, place: Place): { path: string | undefined; indexed: boolean; childPlace: Place } {
  const path = object.slug === undefined ? undefined : place.parentPath ? `${place.parentPath}/${object.slug}` : object.slug;
  return {
    path,
    indexed: (object.type === 'document' || object.type === 'computed') && path !== undefined,
    childPlace: { parentPath: path ?? place.parentPath, ancestors: [...place.ancestors, object.title] },
  };
}

function samePlaceAs(a: Place, b: Place): boolean {
  return a.parentPath === b.parentPath && a.ancestors.length === b.ancestors.length && a.ancestors.every((title, i) => title === b.ancestors[i]);
}
