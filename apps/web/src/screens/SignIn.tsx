import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api, errorMessage, errorStatus } from '../api/client.js';
import { sessionQuery } from '../api/queries.js';
import { signIn, type AuthSession, type SignInChallenge } from '../api/session.js';

/** Only an address of this app is a place to return to: never another origin (`//host`, `https:`). */
export function safeReturnPath(value: string | null): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  return value;
}

function failureMessage(error: unknown): string {
  const status = errorStatus(error);
  if (status === 401) return 'The email or password is not right. Check them and try again.';
  if (status === 429) return 'Too many attempts. Wait a minute, then try again.';
  return errorMessage(error);
}

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();

  const attempt = useMutation({
    mutationFn: () => signIn({ email, password, ...(needsCode ? { code } : {}) }),
    onSuccess: async (answer: AuthSession | SignInChallenge) => {
      if (answer.object === 'sign-in-challenge') {
        setNeedsCode(true);
        return;
      }
      queryClient.setQueryData(sessionQuery.queryKey, answer);
      await navigate(safeReturnPath(params.get('return')), { replace: true });
    },
  });

  // The installation's identity provider, when one is configured: its start address signs in and comes back.
  const providers = useQuery({ queryKey: ['sign-in-providers'], queryFn: () => unwrap(api.GET('/auth/providers')), staleTime: 300_000 });
  const oidc = providers.data?.oidc;
  const oidcStart = oidc ? `${oidc.startURL}${oidc.startURL.includes('?') ? '&' : '?'}return=${encodeURIComponent(safeReturnPath(params.get('return')))}` : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    attempt.mutate();
  };

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to Quire</h1>
      <form onSubmit={submit} noValidate={false}>
        {needsCode ? (
          <>
            <p>Your account has a second factor. Enter the code your authenticator app shows, or a recovery code.</p>
            <label htmlFor="sign-in-code">Authentication code</label>
            <input id="sign-in-code" name="code" autoComplete="one-time-code" inputMode="text" required autoFocus value={code} onChange={(event) => setCode(event.target.value)} />
          </>
        ) : (
          <>
            <label htmlFor="sign-in-email">Email</label>
            <input id="sign-in-email" name="email" type="email" autoComplete="username" required value={email} onChange={(event) => setEmail(event.target.value)} />
            <label htmlFor="sign-in-password">Password</label>
            <input id="sign-in-password" name="password" type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
          </>
        )}
        {attempt.isError ? (
          <p className="error" role="alert">
            {failureMessage(attempt.error)}
          </p>
        ) : null}
        <button type="submit" disabled={attempt.isPending}>
          {needsCode ? 'Verify code' : 'Sign in'}
        </button>
      </form>
      {oidc && oidcStart && !needsCode ? (
        <div className="providers">
          <p className="or">or</p>
          <a className="button-link" href={oidcStart}>
            Sign in with {oidc.name}
          </a>
        </div>
      ) : null}
      <p className="aside">
        <a href="/docs">API reference</a>
      </p>
    </main>
  );
}
