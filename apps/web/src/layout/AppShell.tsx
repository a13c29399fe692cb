import { useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate } from 'react-router';
import { useSession } from '../api/queries.js';
import { signOut } from '../api/session.js';
import { SearchBox } from '../search/SearchBox.js';

export function AppShell() {
  const session = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const user = session.data?.user;
  const onSignOut = async () => {
    await signOut().catch(() => undefined);
    queryClient.clear();
    await navigate('/sign-in');
  };
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand">
          Quire
        </Link>
        <nav aria-label="Quire">
          <a href="/docs">API reference</a>
        </nav>
        <SearchBox />
        <div className="account">
          {user ? <span className="who">{user.displayName}</span> : null}
          <button type="button" className="quiet" onClick={() => void onSignOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
