import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { api } from '../api/client.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { CopyButton } from './CopyButton.js';
import { explain, publishingAuthKey, sitePath, type PublishingAuth, type Site, type SiteRef } from './site-api.js';

/*
 * The visitor authentication backend of a `visitor-auth` site: where visitors without a valid JWT are sent to
 * sign in (fallbackURL), and the key the organization's backend signs their JWTs with. The key stays hidden
 * until asked for, since anyone holding it can let anyone in; a regenerated key is shown at once, with a
 * warning that the old one stopped working.
 */
export function VisitorAuth({ site, siteRef }: { site: Site; siteRef: SiteRef }) {
  const id = useId();
  const queryClient = useQueryClient();
  const key = publishingAuthKey(siteRef);
  const auth = useQuery({ queryKey: key, queryFn: () => unwrap(api.GET('/orgs/{organizationId}/sites/{siteId}/publishing/auth', sitePath(siteRef))) });
  const [fallbackURL, setFallbackURL] = useState<string | undefined>(undefined);
  const [revealed, setRevealed] = useState<'hidden' | 'shown' | 'regenerated'>('hidden');
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
  const onAuth = (answer: PublishingAuth) => queryClient.setQueryData(key, answer);
  const save = useMutation({
    mutationFn: (url: string) => unwrap(api.PATCH('/orgs/{organizationId}/sites/{siteId}/publishing/auth', { ...sitePath(siteRef), body: { backend: 'custom', fallbackURL: url.trim() ? url.trim() : null } })),
    onSuccess: (answer) => {
      onAuth(answer);
      setFallbackURL(undefined);
    },
  });
  const regenerate = useMutation({
    mutationFn: () => unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate', sitePath(siteRef))),
    onSuccess: (answer) => {
      onAuth(answer);
      setConfirming(false);
      setRevealed('regenerated');
    },
  });

  const body = () => {
    if (auth.isPending) return <Loading label="Loading the visitor authentication" />;
    if (auth.isError) return <ErrorNotice title="The visitor authentication could not be loaded" error={auth.error} />;
    const url = fallbackURL ?? auth.data.fallbackURL ?? '';
    const submit = (event: FormEvent) => {
      event.preventDefault();
      save.mutate(url);
    };
    return (
      <>
        <form className="site-form" onSubmit={submit}>
          <label htmlFor={`${id}-fallback`}>Sign-in address of your backend</label>
          <input id={`${id}-fallback`} type="url" value={url} placeholder="https://auth.example.com/docs-login" onChange={(event) => setFallbackURL(event.target.value)} aria-describedby={`${id}-fallback-help`} />
          <p id={`${id}-fallback-help`} className="help">
            Visitors without a valid token go there with <code>?location=</code> the address they asked for; your backend signs them in, signs a JWT (HS256, with <code>exp</code>) with the private key below and
            sends them back with <code>?jwt_token=</code>.
          </p>
          <div className="actions">
            <button type="submit" className="secondary" disabled={save.isPending || fallbackURL === undefined}>
              {save.isPending ? 'Saving…' : 'Save sign-in address'}
            </button>
          </div>
        </form>
        {save.isSuccess && fallbackURL === undefined ? <p role="status">Sign-in address saved.</p> : null}
        {save.isError ? <ErrorNotice title="The sign-in address was not saved" message={explain(save.error, 'Give a full http:// or https:// address, or leave it empty to remove it.')} /> : null}

        <h3>Private key</h3>
        {revealed === 'hidden' ? (
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setRevealed('shown')}>
              Show the private key
            </button>
          </div>
        ) : (
          <div className={revealed === 'regenerated' ? 'secret warning' : 'secret'}>
            <p className="secret-warning">
              {revealed === 'regenerated' ? 'A new key was made: the old one no longer signs visitors in. Copy this one into your backend now. ' : ''}
              Keep it secret: anyone who holds it can let anyone read this site.
            </p>
            <code className="secret-text">{auth.data.privateKey}</code>
            <div className="actions">
              <CopyButton text={auth.data.privateKey} label="Copy key" what="(the private key)" />
              <button type="button" className="quiet" onClick={() => setRevealed('hidden')}>
                Hide the private key
              </button>
            </div>
          </div>
        )}
        {confirming ? (
          <div className="confirm" role="group" aria-labelledby={`${id}-confirm`}>
            <p id={`${id}-confirm`}>A new key stops the old one at once: visitors signed in with it must sign in again, and your backend must use the new key.</p>
            <div className="actions">
              <button ref={confirmRef} type="button" className="danger" disabled={regenerate.isPending} onClick={() => regenerate.mutate()}>
                {regenerate.isPending ? 'Making a new key…' : 'Yes, make a new key'}
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                Keep the current key
              </button>
            </div>
          </div>
        ) : (
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setConfirming(true)}>
              Regenerate the private key
            </button>
          </div>
        )}
        {regenerate.isError ? <ErrorNotice title="No new key was made" message={explain(regenerate.error, 'The current key still works; try again.')} /> : null}
      </>
    );
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Visitor authentication</h2>
      {site.visibility !== 'visitor-auth' ? <p className="help">Used only while the site's visibility is “Visitor authentication”; change it above to use it.</p> : null}
      {body()}
    </section>
  );
}
