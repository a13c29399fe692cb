import { getGitSyncInfo, queueGitExport, queueGitImport, removeLegacyGitInstallation } from '../../services/git-sync-service.js';
import { presentGitSyncState } from '../presenters/git-sync-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Git sync of a space: imports and exports are queued (204) and read back through the Git info. */
export function gitSyncHandlers({ services }: HandlerDeps): Handlers {
  return {
    importGitRepository: async ({ caller, params, body }) => {
      await queueGitImport(services, caller, params.spaceId, body);
      return { status: 204 };
    },

    exportToGitRepository: async ({ caller, params, body }) => {
      await queueGitExport(services, caller, params.spaceId, body);
      return { status: 204 };
    },

    getSpaceGitInfo: async ({ caller, params }) => {
      const { state, operation } = await getGitSyncInfo(services, caller, params.spaceId);
      return { status: 200, body: presentGitSyncState(state, operation) };
    },

    deleteLegacyGitInstallation: async ({ caller, params }) => {
      await removeLegacyGitInstallation(services, caller, params.spaceId);
      return { status: 204 };
    },
  };
}
