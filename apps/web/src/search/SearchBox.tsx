import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice } from '../layout/Feedback.js';

/*
 * One box in the header that searches everything the person can see: every organization they belong to,
 * through searchOrganizationContent (which never searches a space they cannot see), results grouped by
 * space. "/" or Ctrl+K puts the cursor in it from anywhere; Arrow keys move between the results, Escape
 * goes back to the box and closes them.
 */

const TYPING_PAUSE_MS = 250;

/**
 * Whether a key press goes into something one types in. The event's own first target is asked, not
 * `event.target`: the editor lives in a shadow root, whose key presses reach the document retargeted at its host.
 */
function isTypingTarget(event: globalThis.KeyboardEvent): boolean {
  const target = event.composedPath()[0] ?? event.target;
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.closest('.cm-editor') !== null;
}

export function SearchBox() {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const results = useRef<HTMLDivElement>(null);
  const location = useLocation();

  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);

  // A result opened: the panel closes.
  useEffect(() => setOpen(false), [location.pathname]);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const slash = event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && !isTypingTarget(event);
      const ctrlK = event.key.toLowerCase() === 'k' && (event.ctrlKey || event.metaKey);
      if (!slash && !ctrlK) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const organizations = useQuery({
    queryKey: ['organizations'],
    queryFn: () => all((page) => api.GET('/orgs', { params: { query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
  const search = useQuery({
    queryKey: ['search', query, (organizations.data ?? []).map((organization) => organization.id)],
    enabled: query !== '' && organizations.isSuccess,
    queryFn: () =>
      Promise.all(
        organizations.data!.map(async (organization) => ({
          organization,
          spaces: (await unwrap(api.GET('/orgs/{organizationId}/search', { params: { path: { organizationId: organization.id }, query: { query, limit: 20 } } }))).items,
        })),
      ),
  });

  const links = () => Array.from(results.current?.querySelectorAll<HTMLAnchorElement>('a') ?? []);
  const move = (event: KeyboardEvent, step: number) => {
    const all = links();
    if (all.length === 0) return;
    event.preventDefault();
    const at = all.indexOf(document.activeElement as HTMLAnchorElement);
    const next = at === -1 ? (step > 0 ? 0 : all.length - 1) : at + step;
    if (next < 0) input.current?.focus();
    else all[Math.min(next, all.length - 1)]!.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') move(event, 1);
    else if (event.key === 'ArrowUp') move(event, -1);
    else if (event.key === 'Escape') {
      setOpen(false);
      input.current?.focus();
    }
  };

  const groups = (search.data ?? []).flatMap(({ organization, spaces }) => spaces.map((space) => ({ organization, space })));
  const several = (organizations.data?.length ?? 0) > 1;
  const pageCount = groups.reduce((sum, group) => sum + group.space.pages.length, 0);
  const showPanel = open && query !== '';

  return (
    <div
      className="search"
      role="search"
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <label htmlFor="app-search">
        Search <kbd aria-hidden="true">/</kbd>
      </label>
      <input
        id="app-search"
        ref={input}
        type="search"
        autoComplete="off"
        aria-keyshortcuts="/ Control+K"
        aria-controls={showPanel ? 'search-results' : undefined}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
      />
      {showPanel ? (
        <div className="search-results" id="search-results" ref={results} aria-label="Search results" role="region">
          <p role="status" className="search-count">
            {search.isFetching ? 'Searching…' : search.isSuccess ? (pageCount === 0 ? `Nothing found for “${query}”.` : `${pageCount} ${pageCount === 1 ? 'page' : 'pages'} found. Arrow keys move through them.`) : ''}
          </p>
          {search.isError ? <ErrorNotice title="The search did not work" error={search.error} /> : null}
          {groups.map(({ organization, space }) => (
            <section key={space.id} aria-label={space.title}>
              <h2 className="search-space">
                {space.title || 'Untitled space'}
                {several ? <span className="search-org"> · {organization.title}</span> : null}
              </h2>
              <ul>
                {space.pages.map((page) => (
                  <li key={page.id}>
                    <Link to={appPath(page.urls.app)}>
                      <span className="search-title">{page.title || 'Untitled page'}</span>
                      {page.sections[0]?.body ? <span className="search-snippet">{page.sections[0].body}</span> : null}
                    </Link>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </div>
      ) : null}
    </div>
  );
}
