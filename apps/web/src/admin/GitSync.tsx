import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import type { components } from '@quire/api-types';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, errorMessage, errorStatus } from '../api/client.js';
import { useSpace } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { settingsPath, useOrganizationId } from './organization.js';

type GitSyncState = components['schemas']['GitSyncState'];

/** How often a running import or export is asked about: the screen follows it until it ends. */
const GIT_POLL_MS = 1000;

const isRunning = (state: GitSyncState | null | undefined) => state?.operation?.state === 'running';

const OUTCOMES: Record<string, string> = {
  running: 'running…',
  success: 'done',
  failure: 'failed',
  timeout: 'stopped: it took too long',
};

/** The repository URL with the credentials in it, as the API takes them (used for one run, never stored). */
function withCredentials(url: string, username: string, token: string): string {
  if (!username && !token) return url;
  try {
    const parsed = new URL(url);
    parsed.username = username || 'git';
    parsed.password = token;
    return parsed.href;
  } catch {
    return url; // not a URL: the API says so
  }
}

/**
 * The Git sync of one space: how its latest import or export went (followed while it runs), and a form to
 * import a branch into the space or to export the space to it. A token is typed in a password field (never
 * shown) and sent inside the URL, as the API takes it; Quire uses it for that one run and never keeps it.
 */
export default function GitSync() {
  const organizationId = useOrganizationId();
  const spaceId = useParams().spaceId!;
  const queryClient = useQueryClient();
  const space = useSpace(spaceId);
  const key = ['space', spaceId, 'git'];
  const state = useQuery({
    queryKey: key,
    // A space never synchronized answers 404: that is "nothing yet", not an error.
    queryFn: async () => {
      const answer = await api.GET('/spaces/{spaceId}/git/info', { params: { path: { spaceId } } });
      if (answer.response.status === 404 && space.data) return null;
      return unwrap(answer);
    },
    enabled: space.isSuccess,
    refetchInterval: (query) => (isRunning(query.state.data) ? GIT_POLL_MS : false),
  });
  const [url, setUrl] = useState('');
  const [username, setUsername] = useState('');
  const [token, setToken] = useState('');
  const [branch, setBranch] = useState('main');
  const [directory, setDirectory] = useState('');
  const [message, setMessage] = useState('Export from Quire');
  const body = () => ({ url: withCredentials(url.trim(), username.trim(), token), ref: `refs/heads/${branch.trim()}`, force: false, standalone: false, ...(directory.trim() ? { repoProjectDirectory: directory.trim() } : {}) });
  const run = useMutation({
    mutationFn: async (direction: 'import' | 'export') => {
      const path = { params: { path: { spaceId } } };
      if (direction === 'import') await unwrap(api.POST('/spaces/{spaceId}/git/import', { ...path, body: body() }));
      else await unwrap(api.POST('/spaces/{spaceId}/git/export', { ...path, body: { ...body(), commitMessage: message.trim() } }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: key });
      // An import changes the space's content: its screens read it again.
      await queryClient.invalidateQueries({ queryKey: ['space', spaceId, 'revision'] });
    },
  });

  if (space.isPending) return <Loading label="Loading the space" />;
  if (space.isError) return <ErrorNotice title="This space could not be opened" error={space.error} />;
  const allowed = space.data.permissions.triggerGitSync;
  const operation = state.data?.operation;
  const ready = url.trim() !== '' && branch.trim() !== '';

  return (
    <section aria-labelledby="git-space-title">
      <p className="crumbs">
        <Link to={settingsPath(organizationId, 'git')}>Git sync</Link>
      </p>
      <h2 id="git-space-title">Git sync of “{space.data.title || 'Untitled space'}”</h2>
      {state.isError && errorStatus(state.error) !== 404 ? <ErrorNotice title="The Git sync state could not be loaded" error={state.error} /> : null}
      <div role="status" className="git-state">
        {state.data === null ? <p>This space has never been synchronized with a Git repository.</p> : null}
        {state.data?.url ? (
          <p>
            Repository: {state.data.url}
            {state.data.repoName ? ` (${state.data.repoName})` : ''}
          </p>
        ) : null}
        {operation ? (
          <p className={operation.state === 'failure' || operation.state === 'timeout' ? 'error' : operation.state === 'success' ? 'notice' : undefined}>
            {operation.direction === 'import' ? 'Import' : 'Export'} started {new Date(operation.startedAt).toLocaleString()}: {OUTCOMES[operation.state] ?? operation.state}
            {operation.endedAt ? ` (ended ${new Date(operation.endedAt).toLocaleString()})` : ''}.
            {operation.error ? ` ${operation.error}` : ''}
          </p>
        ) : null}
      </div>
      {operation?.state === 'failure' ? <p className="hint">Check the repository URL, the branch and the credentials, then run it again.</p> : null}
      {allowed ? (
        <form className="inline-form" onSubmit={(event) => event.preventDefault()} aria-labelledby="git-run-title">
          <h3 id="git-run-title">Import or export</h3>
          <label htmlFor="git-url">Repository URL</label>
          <input id="git-url" type="url" required className="wide" placeholder="https://git.example.com/owner/docs.git" value={url} onChange={(event) => setUrl(event.target.value)} />
          <div className="field-row">
            <label htmlFor="git-user">User name (optional)</label>
            <input id="git-user" autoComplete="off" value={username} onChange={(event) => setUsername(event.target.value)} />
            <label htmlFor="git-token">Access token or password (optional)</label>
            <input id="git-token" type="password" autoComplete="off" aria-describedby="git-token-hint" value={token} onChange={(event) => setToken(event.target.value)} />
          </div>
          <p id="git-token-hint" className="hint">
            For a private repository. Quire uses them for this run only and never keeps them.
          </p>
          <div className="field-row">
            <label htmlFor="git-branch">Branch</label>
            <input id="git-branch" required value={branch} onChange={(event) => setBranch(event.target.value)} />
            <label htmlFor="git-directory">Directory in the repository (optional)</label>
            <input id="git-directory" value={directory} onChange={(event) => setDirectory(event.target.value)} />
          </div>
          <div className="field-row">
            <label htmlFor="git-message">Commit message of an export</label>
            <input id="git-message" className="wide" required value={message} onChange={(event) => setMessage(event.target.value)} />
          </div>
          <div className="actions">
            <button type="button" disabled={!ready || run.isPending || isRunning(state.data)} onClick={() => run.mutate('import')}>
              Import from Git
            </button>
            <button type="button" className="secondary" disabled={!ready || message.trim() === '' || run.isPending || isRunning(state.data)} onClick={() => run.mutate('export')}>
              Export to Git
            </button>
          </div>
          {run.isError ? <ErrorNotice title={run.variables === 'import' ? 'The import was not started' : 'The export was not started'} message={errorMessage(run.error)} /> : null}
        </form>
      ) : (
        <p>You cannot start a Git sync of this space: it needs the right to administer it.</p>
      )}
    </section>
  );
}
