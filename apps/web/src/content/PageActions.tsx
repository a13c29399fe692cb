import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client.js';
import type { RevisionPage } from './pages.js';
import { flattenPages } from './pages.js';
import { locate, placeFor, useContentEdit, type KeyboardMove } from './tree-edits.js';

/*
 * What can be done to the open page of a change request: add a page after it or inside it, rename it, move it
 * (the buttons do what Alt+Arrow keys do in the tree), hide or show it, delete it after a confirmation shown
 * in the page (never a browser dialog). Every change is one batch saved in the change request.
 */

type Mode = { kind: 'idle' } | { kind: 'add'; inside: boolean } | { kind: 'rename' } | { kind: 'delete' };

const MOVES: { move: KeyboardMove; label: string }[] = [
  { move: 'up', label: 'Move up' },
  { move: 'down', label: 'Move down' },
  { move: 'in', label: 'Move into page above' },
  { move: 'out', label: 'Move out of parent' },
];

export function PageActions({ page, pages, spaceId, changeRequestId, onCreated, onDeleted }: {
  page: RevisionPage;
  pages: RevisionPage[];
  spaceId: string;
  changeRequestId: string;
  onCreated: (pageId: string) => void;
  onDeleted: () => void;
}) {
  const edit = useContentEdit(spaceId, changeRequestId);
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  const [title, setTitle] = useState('');
  const [done, setDone] = useState('');
  const descendants = flattenPages(page.pages ?? []).length;

  const open = (next: Mode) => {
    setMode(next);
    setTitle(next.kind === 'rename' ? page.title : '');
    setDone('');
    edit.reset();
  };

  const submitAdd = (inside: boolean) => (event: FormEvent) => {
    event.preventDefault();
    const name = title.trim();
    if (!name) return;
    const here = locate(pages, page.id);
    const place = inside || !here ? { into: page.id } : { into: here.parent?.id ?? null, at: here.index + 1 };
    // mutateAsync, not mutate's callbacks: those are dropped when this panel unmounts as the tree refreshes.
    edit.mutateAsync([{ operation: 'insert_page', title: name, document: { markdown: '' }, ...place }]).then((answer) => {
      setMode({ kind: 'idle' });
      setDone(`Page “${name}” added.`);
      onCreated(answer.changes[0]!.page);
    }, () => undefined);
  };

  const submitRename = (event: FormEvent) => {
    event.preventDefault();
    const name = title.trim();
    if (!name || name === page.title) return setMode({ kind: 'idle' });
    edit.mutate([{ operation: 'update_page', page: page.id, title: name }], {
      onSuccess: () => {
        setMode({ kind: 'idle' });
        setDone(`Renamed to “${name}”.`);
      },
    });
  };

  const toggleHidden = () =>
    edit.mutate([{ operation: 'update_page', page: page.id, hidden: !page.hidden }], {
      onSuccess: () => setDone(page.hidden ? `“${page.title}” is shown in the table of contents.` : `“${page.title}” is hidden from the table of contents.`),
    });

  const move = (direction: KeyboardMove) => {
    const place = placeFor(pages, page.id, direction);
    if (!place) return setDone(`“${page.title}” cannot move that way.`);
    edit.mutate([{ operation: 'update_page', page: page.id, into: place.into, at: place.at }], { onSuccess: () => setDone(`“${page.title}” moved.`) });
  };

  const confirmDelete = () =>
    // The panel is gone once the refreshed tree lacks the page, so the screen is told through the promise.
    edit.mutateAsync([{ operation: 'delete_page', page: page.id }]).then(onDeleted, () => undefined);

  return (
    <section className="page-actions" aria-labelledby="page-actions-title">
      <h2 id="page-actions-title" className="page-actions-title">
        This page
      </h2>
      <div className="action-row">
        <button type="button" className="small secondary" onClick={() => open({ kind: 'add', inside: false })}>Add page</button>
        <button type="button" className="small secondary" onClick={() => open({ kind: 'add', inside: true })}>Add subpage</button>
        <button type="button" className="small secondary" onClick={() => open({ kind: 'rename' })}>Rename</button>
        <button type="button" className="small secondary" onClick={toggleHidden} disabled={edit.isPending}>{page.hidden ? 'Show page' : 'Hide page'}</button>
        <button type="button" className="small danger" onClick={() => open({ kind: 'delete' })}>Delete page</button>
      </div>
      <div className="action-row" role="group" aria-label="Move">
        {MOVES.map(({ move: direction, label }) => (
          <button key={direction} type="button" className="small quiet" onClick={() => move(direction)} disabled={edit.isPending || !placeFor(pages, page.id, direction)}>
            {label}
          </button>
        ))}
      </div>

      {mode.kind === 'add' ? (
        <form className="inline-form" onSubmit={submitAdd(mode.inside)}>
          <label htmlFor="new-page-title">{mode.inside ? `Title of the new page inside “${page.title}”` : `Title of the new page after “${page.title}”`}</label>
          <input id="new-page-title" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={100} required autoFocus />
          <div className="actions">
            <button type="submit" disabled={edit.isPending}>Create page</button>
            <button type="button" className="secondary" onClick={() => open({ kind: 'idle' })}>Cancel</button>
          </div>
        </form>
      ) : null}
      {mode.kind === 'rename' ? (
        <form className="inline-form" onSubmit={submitRename}>
          <label htmlFor="page-title-input">New title</label>
          <input id="page-title-input" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={100} required autoFocus />
          <div className="actions">
            <button type="submit" disabled={edit.isPending}>Save title</button>
            <button type="button" className="secondary" onClick={() => open({ kind: 'idle' })}>Cancel</button>
          </div>
        </form>
      ) : null}
      {mode.kind === 'delete' ? (
        <div className="confirm-delete" role="alertdialog" aria-labelledby="confirm-delete-text">
          <p id="confirm-delete-text">
            Delete “{page.title}”{descendants > 0 ? ` and its ${descendants} subpage${descendants === 1 ? '' : 's'}` : ''} from this change request? Main is
            untouched until the change request is merged.
          </p>
          <div className="actions">
            <button type="button" className="danger" onClick={confirmDelete} disabled={edit.isPending} autoFocus>
              Delete “{page.title}”
            </button>
            <button type="button" className="secondary" onClick={() => open({ kind: 'idle' })}>Keep it</button>
          </div>
        </div>
      ) : null}
      <p role="status" className="action-done">{edit.isPending ? 'Saving…' : done}</p>
      {edit.isError ? <p role="alert" className="tree-error">{`Not saved: ${errorMessage(edit.error)}`}</p> : null}
    </section>
  );
}
