import { getSpaceGitInfo, exportToGitRepository, importGitRepository, deleteLegacyGitInstallation } from '../../services/git-sync-service.js';
import { presentGitSyncState } from '../presenters/git-sync-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Git sync of a space: imports and exports are queued (204) and read back through the Git info. */
export function gitSyncHandlers({ services }: HandlerDeps): Handlers {
  return {
    importGitRepository: async ({ caller, params, body }) => {
      await importGitRepository(services, caller, params.spaceId, body);
      return { status: 204 };
    },

    exportToGitRepository: async ({ caller, params, body }) => {
      await exportToGitRepository(services, caller, params.spaceId, body);
      return { status: 204 };
    },

    getSpaceGitInfo: async ({ caller, params }) => {
      const { state, operation } = await getSpaceGitInfo(services, caller, params.spaceId);
      return { status: 200, body: presentGitSyncState(state, operation) };
    },

    deleteLegacyGitInstallation: async ({ caller, params }) => {
      await deleteLegacyGitInstallation(services, caller, params.spaceId);
      return { status: 204 };
    },
  };
}
