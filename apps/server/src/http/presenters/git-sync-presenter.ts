import type { components } from '@quire/api-types';
import type { GitSyncOperationRow, GitSyncStateRow } from '../../stores/git-sync-store.js';

export type ApiGitSyncState = components['schemas']['GitSyncState'];

type Provider = NonNullable<ApiGitSyncState['installationProvider']>;
const PROVIDERS: readonly string[] = ['github', 'gitlab', 'github-legacy'] satisfies Provider[];

/**
 * `getSpaceGitInfo`'s answer, which is also the space's `gitSync` (presented from the copy of both rows the
 * Git sync service keeps on the space row). URLs are stored without credentials, and operation errors are
 * scrubbed before they are stored; `error` is shown only for the final states that have one.
 */
export function presentGitSyncState(state: GitSyncStateRow, operation: GitSyncOperationRow | undefined): ApiGitSyncState {
  const failed = operation && (operation.state === 'failure' || operation.state === 'timeout');
  return {
    ...(state.repo_name ? { repoName: state.repo_name } : {}),
    ...(state.provider && PROVIDERS.includes(state.provider) ? { installationProvider: state.provider as Provider } : {}),
    ...(state.url ? { url: state.url } : {}),
    updatedAt: state.updated_at,
    ...(operation
      ? {
          operation: {
            state: operation.state,
            direction: operation.direction,
            startedAt: operation.started_at,
            ...(operation.ended_at ? { endedAt: operation.ended_at } : {}),
            ...(failed && operation.error ? { error: operation.error } : {}),
          },
        }
      : {}),
  };
}
