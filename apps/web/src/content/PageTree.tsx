import { NavLink } from 'react-router';
import { appPath } from '../api/queries.js';
import type { RevisionPage } from './pages.js';

/** The page tree of a revision as nested lists of links; `base` moves the links into a change request. */
export function PageTree({ pages, label, addressOf = (page) => appPath(page.urls.app) }: { pages: RevisionPage[]; label: string; addressOf?: (page: RevisionPage) => string }) {
  return (
    <nav aria-label={label} className="page-tree">
      <Pages pages={pages} addressOf={addressOf} />
    </nav>
  );
}

function Pages({ pages, addressOf }: { pages: RevisionPage[]; addressOf: (page: RevisionPage) => string }) {
  if (pages.length === 0) return null;
  return (
    <ul>
      {pages.map((page) => (
        <li key={page.id}>
          {page.type === 'link' ? (
            <span className="page-link-entry">{page.title}</span>
          ) : (
            <NavLink to={addressOf(page)} end className={page.hidden ? 'hidden-page' : undefined}>
              {page.emoji ? `${page.emoji} ` : ''}
              {page.title}
            </NavLink>
          )}
          <Pages pages={page.pages ?? []} addressOf={addressOf} />
        </li>
      ))}
    </ul>
  );
}
