import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { NavLink } from 'react-router';
import { appPath } from '../api/queries.js';
import { errorMessage } from '../api/client.js';
import type { RevisionPage } from './pages.js';
import { describePlace, locate, placeFor, placeForDrop, useContentEdit, type DropSide, type KeyboardMove, type Place } from './tree-edits.js';

/*
 * The page tree of a change request that can be rearranged: drag a page onto another (its upper quarter puts
 * it before, its lower quarter after, the middle inside), or, with the keyboard, Alt+Arrow keys on a focused
 * page (up, down, Right: into the page above, Left: out of its parent). Each move is saved at once in the
 * change request and announced in words; focus stays on the moved page.
 */

const KEY_MOVES: Record<string, KeyboardMove> = { ArrowUp: 'up', ArrowDown: 'down', ArrowRight: 'in', ArrowLeft: 'out' };

export function EditablePageTree({ pages, label, spaceId, changeRequestId }: { pages: RevisionPage[]; label: string; spaceId: string; changeRequestId: string }) {
  const edit = useContentEdit(spaceId, changeRequestId);
  const [announcement, setAnnouncement] = useState('');
  const [dragged, setDragged] = useState<string | null>(null);
  const [dropAt, setDropAt] = useState<{ id: string; side: DropSide } | null>(null);
  const refocus = useRef<string | null>(null);
  const nav = useRef<HTMLElement>(null);

  // Once the moved page is in the refreshed tree: say where it is, and give it the focus back.
  useEffect(() => {
    const id = refocus.current;
    if (!id || edit.isPending) return;
    const link = nav.current?.querySelector<HTMLElement>(`[data-page-id="${CSS.escape(id)}"]`);
    if (!link || !locate(pages, id)) return;
    refocus.current = null;
    setAnnouncement(describePlace(pages, id));
    link.focus();
  }, [pages, edit.isPending]);

  function move(id: string, place: Place | undefined) {
    const here = locate(pages, id);
    if (!here || !place) {
      setAnnouncement(here ? `“${here.page.title}” cannot move that way.` : '');
      return;
    }
    if ((here.parent?.id ?? null) === place.into && here.index === place.at) return;
    setAnnouncement(`Moving “${here.page.title}”…`);
    edit.mutate([{ operation: 'update_page', page: id, into: place.into, at: place.at }], {
      onSuccess: () => {
        refocus.current = id;
      },
      onError: (error) => setAnnouncement(`“${here.page.title}” was not moved: ${errorMessage(error)}`),
    });
  }

  const onKeyDown = (id: string) => (event: KeyboardEvent) => {
    const direction = event.altKey && !event.ctrlKey && !event.metaKey ? KEY_MOVES[event.key] : undefined;
    if (!direction) return;
    event.preventDefault();
    move(id, placeFor(pages, id, direction));
  };

  const sideOf = (event: DragEvent<HTMLElement>): DropSide => {
    const box = event.currentTarget.getBoundingClientRect();
    const y = (event.clientY - box.top) / Math.max(box.height, 1);
    return y < 0.25 ? 'before' : y > 0.75 ? 'after' : 'inside';
  };

  const handlers = {
    onKeyDown,
    onDragStart: (id: string) => (event: DragEvent<HTMLElement>) => {
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', id);
      setDragged(id);
    },
    onDragOver: (id: string) => (event: DragEvent<HTMLElement>) => {
      if (!dragged || dragged === id) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      const side = sideOf(event);
      if (dropAt?.id !== id || dropAt.side !== side) setDropAt({ id, side });
    },
    onDrop: (id: string) => (event: DragEvent<HTMLElement>) => {
      event.preventDefault();
      const side = sideOf(event);
      if (dragged) move(dragged, placeForDrop(pages, dragged, id, side));
      setDragged(null);
      setDropAt(null);
    },
    onDragEnd: () => {
      setDragged(null);
      setDropAt(null);
    },
  };

  return (
    <nav aria-label={label} className="page-tree editable-tree" ref={nav}>
      <Branch pages={pages} handlers={handlers} dropAt={dropAt} />
      <p className="tree-help" id="tree-help">
        Drag pages to move them, or press Alt with the arrow keys on a focused page.
      </p>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
      {edit.isError ? <p className="tree-error" role="alert">{`Not moved: ${errorMessage(edit.error)}`}</p> : null}
    </nav>
  );
}

interface Handlers {
  onKeyDown: (id: string) => (event: KeyboardEvent) => void;
  onDragStart: (id: string) => (event: DragEvent<HTMLElement>) => void;
  onDragOver: (id: string) => (event: DragEvent<HTMLElement>) => void;
  onDrop: (id: string) => (event: DragEvent<HTMLElement>) => void;
  onDragEnd: () => void;
}

function Branch({ pages, handlers, dropAt }: { pages: RevisionPage[]; handlers: Handlers; dropAt: { id: string; side: DropSide } | null }) {
  if (pages.length === 0) return null;
  return (
    <ul>
      {pages.map((page) => (
        <li key={page.id}>
          <div
            className={`tree-row${dropAt?.id === page.id ? ` drop-${dropAt.side}` : ''}`}
            draggable
            data-drop-target={page.id}
            onDragStart={handlers.onDragStart(page.id)}
            onDragOver={handlers.onDragOver(page.id)}
            onDrop={handlers.onDrop(page.id)}
            onDragEnd={handlers.onDragEnd}
          >
            {page.type === 'link' ? (
              <span className="page-link-entry" tabIndex={0} data-page-id={page.id} aria-describedby="tree-help" onKeyDown={handlers.onKeyDown(page.id)}>
                {page.title}
              </span>
            ) : (
              <NavLink
                to={appPath(page.urls.app)}
                end
                draggable={false}
                data-page-id={page.id}
                aria-describedby="tree-help"
                className={page.hidden ? 'hidden-page' : undefined}
                onKeyDown={handlers.onKeyDown(page.id)}
              >
                {page.emoji ? `${page.emoji} ` : ''}
                {page.title}
                {page.hidden ? <span className="hidden-mark"> (hidden)</span> : null}
              </NavLink>
            )}
          </div>
          <Branch pages={page.pages ?? []} handlers={handlers} dropAt={dropAt} />
        </li>
      ))}
    </ul>
  );
}
