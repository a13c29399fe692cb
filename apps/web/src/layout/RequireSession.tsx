import { Navigate, Outlet, useLocation } from 'react-router';
import { errorMessage, errorStatus } from '../api/client.js';
import { useSession } from '../api/queries.js';
import { ErrorNotice, Loading } from './Feedback.js';

/** Screens past sign-in: without a session, the sign-in screen, which comes back here once signed in. */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <Loading label="Opening your session" />;
  if (session.isError) {
    if (errorStatus(session.error) === 401) {
      const back = location.pathname + location.search + location.hash;
      return <Navigate to={back === '/' ? '/sign-in' : `/sign-in?return=${encodeURIComponent(back)}`} replace />;
    }
    return <ErrorNotice title="Quire could not open your session" message={errorMessage(session.error)} />;
  }
  return <Outlet />;
}
