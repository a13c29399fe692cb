import type { Db } from '../db/index.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import { loadRevisionContent, pagePathsOf, revisionRoot, type RevisionContent } from './revision-content.js';

/*
 * The old addresses of moved pages: a page whose path changed (moved, or its slug or a parent's changed) is
 * still found at the path it had in one of the last revisions of the space, so that links and bookmarks to it
 * keep working (the published-address lookup answers a redirect to its path now). Revisions are immutable,
 * so the old paths of a revision are worked out once per process and kept by revision id; a path that is a
 * page now is never redirected.
 */

/** How many revisions back (first parents) an old path is still honoured. */
const HISTORY_DEPTH = 20;
const MAX_KEPT_REVISIONS = 64;
const kept = new Map<string, Promise<ReadonlyMap<string, string>>>();

function firstParent(parents: string): string | undefined {
  const list = JSON.parse(parents) as unknown;
  return Array.isArray(list) && typeof list[0] === 'string' ? list[0] : undefined;
}

/** Old path -> path now, for the pages of `current` that had another path in the revisions before it (newest first wins). */
async function oldPathsOf(db: Db, spaceId: string, revisionId: string, current: RevisionContent): Promise<ReadonlyMap<string, string>> {
  const moved = new Map<string, string>();
  let revision = await findRevisionOfSpace(db, spaceId, revisionId);
  for (let depth = 0; revision && depth < HISTORY_DEPTH; depth++) {
    const parentId = firstParent(revision.parents);
    revision = parentId === undefined ? undefined : await findRevisionOfSpace(db, spaceId, parentId);
    if (!revision) break;
    for (const [pageId, oldPath] of await pagePathsOf(db, revision.root)) {
      const now = current.pages.get(pageId)?.page.path;
      if (now === undefined || now === oldPath || current.byPath.has(oldPath) || moved.has(oldPath)) continue;
      moved.set(oldPath, now);
    }
  }
  return moved;
}

/** The path now of the page that was at `path` in a recent revision, when `path` is not a page of the revision now. */
export async function movedPagePath(db: Db, space: { id: string; revision_id: string }, path: string): Promise<string | undefined> {
  const current = await loadRevisionContent(db, await revisionRoot(db, space.id, space.revision_id));
  if (path === '' || current.byPath.has(path)) return undefined;
  let paths = kept.get(space.revision_id);
  if (!paths) {
    paths = oldPathsOf(db, space.id, space.revision_id, current);
    kept.set(space.revision_id, paths);
    paths.catch(() => kept.delete(space.revision_id));
    while (kept.size > MAX_KEPT_REVISIONS) kept.delete(kept.keys().next().value!);
  }
  return (await paths).get(path);
}
