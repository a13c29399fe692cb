import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@quire/api-types';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage, errorStatus } from '../api/client.js';
import { sessionQuery, useSession } from '../api/queries.js';
import { signIn } from '../api/session.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';

const ROLE_NAMES: Record<string, string> = { admin: 'an admin', create: 'a creator', review: 'a reviewer', edit: 'an editor', comment: 'a commenter', read: 'a reader' };

type Preview = components['schemas']['OrganizationInvitePreview'];

/** Where the invitation leads once accepted: the space or collection of a link to one, else the organization. */
function destinationOf({ organization, space, collection }: Preview): string {
  const base = `/o/${encodeURIComponent(organization.id)}`;
  if (space) return `${base}/s/${encodeURIComponent(space.id)}`;
  if (collection) return `${base}/c/${encodeURIComponent(collection.id)}`;
  return base;
}

/** What the invitation offers, in a sentence: the organization and role, or the space or collection and level. */
function offerOf({ organization, role, space, collection, level, email }: Preview): string {
  const as = (value: string | null | undefined) => (value ? (ROLE_NAMES[value] ?? value) : 'a guest');
  const content = space ? `the space ${space.title}` : collection ? `the collection ${collection.title}` : undefined;
  const where = content ? `${content} of ${organization.title} as ${as(level)}` : `${organization.title} as ${as(role)}`;
  return `You are invited to ${where}${email ? ` with ${email}` : ''}.`;
}

/**
 * The join address of an invitation: what it offers, then either a name and password (an invitation by e-mail
 * for someone new), or, for someone signed in, a button that joins (a link, or an invitation to their address);
 * then the person lands where they were invited.
 */
export default function Join() {
  const invite = useParams().secret!;
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const queryClient = useQueryClient();
  const navigate = useNavigate();

  const session = useSession();
  const preview = useQuery({
    queryKey: ['invite', invite],
    queryFn: () => unwrap(api.POST('/auth/invites/preview', { body: { invite } })),
    retry: false,
  });

  const accept = useMutation({
    mutationFn: async () => {
      const accepted = await unwrap(api.POST('/auth/invites/accept', { body: { invite, displayName, password } }));
      const email = accepted.user.email ?? preview.data?.email;
      if (!email) return { organizationId: accepted.organizationId, signedIn: false };
      // The account exists from here on: a failed sign-in must not offer to accept (used) again, only to sign in.
      const session = await signIn({ email, password }).catch(() => undefined);
      if (session?.object !== 'auth-session') return { organizationId: accepted.organizationId, signedIn: false };
      queryClient.setQueryData(sessionQuery.queryKey, session);
      return { organizationId: accepted.organizationId, signedIn: true };
    },
    onSuccess: async ({ organizationId, signedIn }) => {
      if (signedIn) await navigate(`/o/${encodeURIComponent(organizationId)}`, { replace: true });
    },
  });

  const join = useMutation({
    mutationFn: (offer: Preview) =>
      unwrap(api.POST('/orgs/{organizationId}/invites/{inviteSecret}', { params: { path: { organizationId: offer.organization.id, inviteSecret: invite } } })),
    onSuccess: async (_answer, offer) => {
      await queryClient.invalidateQueries();
      await navigate(destinationOf(offer), { replace: true });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate();
  };

  if (preview.isPending || session.isPending) {
    return (
      <main id="main" className="sign-in">
        <Loading label="Opening the invitation" />
      </main>
    );
  }
  if (preview.isError) {
    return (
      <main id="main" className="sign-in">
        <h1>This invitation cannot be used</h1>
        <ErrorNotice
          title={errorStatus(preview.error) === 404 ? 'It was used already, revoked, or it expired.' : 'The invitation could not be opened.'}
          message={errorStatus(preview.error) === 404 ? 'Ask the person who invited you for a new one.' : errorMessage(preview.error)}
        />
      </main>
    );
  }
  const offer = preview.data;
  const { organization, email, expiresAt } = offer;
  const returnHere = `/sign-in?return=${encodeURIComponent(`/join/${invite}`)}`;
  const signedIn = session.isSuccess;
  return (
    <main id="main" className="sign-in">
      <h1>Join {offer.space?.title ?? offer.collection?.title ?? organization.title}</h1>
      <p>
        {offerOf(offer)} The invitation works until {new Date(expiresAt).toLocaleString()}.
      </p>
      {signedIn ? (
        <>
          <p>You are signed in as {session.data.user.email ?? session.data.user.displayName}.</p>
          {join.isError ? (
            <div className="error" role="alert">
              <p>{errorMessage(join.error)}</p>
            </div>
          ) : null}
          <button type="button" disabled={join.isPending} onClick={() => join.mutate(offer)}>
            Join
          </button>
        </>
      ) : !email ? (
        // A link is for people with an account: they sign in, then come back here to join.
        <p>
          <Link to={returnHere}>Sign in</Link> to join.
        </p>
      ) : accept.isSuccess && !accept.data.signedIn ? (
        <p role="status">
          Your account is ready. <Link to="/sign-in">Sign in</Link> with your email and the password you chose.
        </p>
      ) : (
        <form onSubmit={submit}>
          <label htmlFor="join-name">Your name</label>
          <input id="join-name" name="name" autoComplete="name" required value={displayName} onChange={(event) => setDisplayName(event.target.value)} />
          <label htmlFor="join-password">Password</label>
          <input id="join-password" name="password" type="password" autoComplete="new-password" required minLength={12} aria-describedby="join-password-rule" value={password} onChange={(event) => setPassword(event.target.value)} />
          <p id="join-password-rule" className="aside">
            At least 12 characters, and not a common password.
          </p>
          {accept.isError ? (
            <div className="error" role="alert">
              {errorStatus(accept.error) === 409 ? (
                <p>
                  You have an account already. <Link to={returnHere}>Sign in</Link>, then open this invitation again.
                </p>
              ) : (
                <p>{errorMessage(accept.error)}</p>
              )}
            </div>
          ) : null}
          <button type="submit" disabled={accept.isPending}>
            Accept invitation
          </button>
        </form>
      )}
    </main>
  );
}
