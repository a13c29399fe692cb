import type { ChangeRequestContentChange } from '@quire/api-types';
import { unwrap } from '@quire/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.js';
import type { RevisionPage } from './pages.js';

/*
 * Edits of a change request's page tree (add, rename, move, hide, delete), each one batch of
 * updateChangeRequestContent. Moves are given as the API takes them: the new parent (`into`, null for the top
 * level) and the position among its children once the page has left its old place (`at`).
 */

export interface Place {
  /** The parent page's id, or null for the top level. */
  into: string | null;
  /** Index among the parent's children, counted without the moved page. */
  at: number;
}

interface Located {
  page: RevisionPage;
  parent: RevisionPage | null;
  siblings: RevisionPage[];
  index: number;
}

export function locate(pages: RevisionPage[], id: string, parent: RevisionPage | null = null): Located | undefined {
  for (const [index, page] of pages.entries()) {
    if (page.id === id) return { page, parent, siblings: pages, index };
    const found = locate(page.pages ?? [], id, page);
    if (found) return found;
  }
  return undefined;
}

/** Link entries hold no pages; every other kind may. */
const canHoldPages = (page: RevisionPage) => page.type !== 'link';

export type KeyboardMove = 'up' | 'down' | 'in' | 'out';

/**
 * Where a keyboard move takes a page: up or down among its siblings, in (the last child of the sibling above),
 * out (right after its parent). Undefined when the page cannot go that way.
 */
export function placeFor(pages: RevisionPage[], id: string, move: KeyboardMove): Place | undefined {
  const here = locate(pages, id);
  if (!here) return undefined;
  const into = here.parent?.id ?? null;
  switch (move) {
    case 'up':
      return here.index > 0 ? { into, at: here.index - 1 } : undefined;
    case 'down':
      return here.index < here.siblings.length - 1 ? { into, at: here.index + 1 } : undefined;
    case 'in': {
      const above = here.siblings[here.index - 1];
      return above && canHoldPages(above) ? { into: above.id, at: (above.pages ?? []).length } : undefined;
    }
    case 'out': {
      if (!here.parent) return undefined;
      const parentPlace = locate(pages, here.parent.id)!;
      return { into: parentPlace.parent?.id ?? null, at: parentPlace.index + 1 };
    }
  }
}

export type DropSide = 'before' | 'inside' | 'after';

/** Where dropping page `id` on `target` puts it; undefined when that is into itself or nowhere new. */
export function placeForDrop(pages: RevisionPage[], id: string, target: string, side: DropSide): Place | undefined {
  if (id === target) return undefined;
  const moved = locate(pages, id);
  const onto = locate(pages, target);
  if (!moved || !onto || locate(moved.page.pages ?? [], target)) return undefined;
  if (side === 'inside') return canHoldPages(onto.page) ? { into: onto.page.id, at: (onto.page.pages ?? []).length } : undefined;
  const into = onto.parent?.id ?? null;
  // Positions count the siblings without the moved page: one that leaves from above the target shifts it up.
  const shift = moved.siblings === onto.siblings && moved.index < onto.index ? 1 : 0;
  return { into, at: onto.index - shift + (side === 'after' ? 1 : 0) };
}

/** How a move reads once made, for the screen reader's announcement: "“Install” is now 2 of 3 in “Guides”." */
export function describePlace(pages: RevisionPage[], id: string): string {
  const here = locate(pages, id);
  if (!here) return '';
  const where = here.parent ? `in “${here.parent.title}”` : 'at the top level';
  return `“${here.page.title}” is now ${here.index + 1} of ${here.siblings.length} ${where}.`;
}

/** Applies one batch to the change request's content and refreshes what shows it. */
export function useContentEdit(spaceId: string, changeRequestId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: ChangeRequestContentChange[]) =>
      unwrap(api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
        params: { path: { spaceId, changeRequestId } },
        body: { changes },
      })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['space', spaceId, 'change-request', changeRequestId] }),
  });
}
