import { listAnswer } from '../../pagination.js';
import {
  inviteToCollection,
  inviteToSpace,
  listPermissionsInCollection,
  listPermissionsInSpace,
  removeTeamPermissionInCollection,
  removeTeamPermissionInSpace,
  removeUserPermissionInCollection,
  removeUserPermissionInSpace,
  updateTeamPermissionInCollection,
  updateTeamPermissionInSpace,
  updateUserPermissionInCollection,
  updateUserPermissionInSpace,
  type GrantPage,
} from '../../services/content-grant-service.js';
import { presentGrant } from '../presenters/grant-presenter.js';
import type { PresentContext } from '../presenters/context.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

function listOf(present: PresentContext, { page, viewer }: GrantPage) {
  return listAnswer(page, (grant) => presentGrant(present, grant, viewer));
}

/** Roles granted on spaces and collections to users and teams. */
export function grantHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listPermissionsInSpace: async ({ caller, params, query }) => ({ status: 200, body: listOf(present, await listPermissionsInSpace(services, caller, params.spaceId, query)) }),
    inviteToSpace: async ({ caller, params, body }) => {
      await inviteToSpace(services, caller, params.spaceId, body);
      return { status: 204 };
    },
    updateUserPermissionInSpace: async ({ caller, params, body }) => {
      await updateUserPermissionInSpace(services, caller, params.spaceId, params.userId, body.role);
      return { status: 204 };
    },
    removeUserPermissionInSpace: async ({ caller, params }) => {
      await removeUserPermissionInSpace(services, caller, params.spaceId, params.userId);
      return { status: 204 };
    },
    updateTeamPermissionInSpace: async ({ caller, params, body }) => {
      await updateTeamPermissionInSpace(services, caller, params.spaceId, params.teamId, body.role);
      return { status: 204 };
    },
    removeTeamPermissionInSpace: async ({ caller, params }) => {
      await removeTeamPermissionInSpace(services, caller, params.spaceId, params.teamId);
      return { status: 204 };
    },
    listPermissionsInCollection: async ({ caller, params, query }) => ({ status: 200, body: listOf(present, await listPermissionsInCollection(services, caller, params.collectionId, query)) }),
    inviteToCollection: async ({ caller, params, body }) => {
      await inviteToCollection(services, caller, params.collectionId, body);
      return { status: 204 };
    },
    updateUserPermissionInCollection: async ({ caller, params, body }) => {
      await updateUserPermissionInCollection(services, caller, params.collectionId, params.userId, body.role);
      return { status: 204 };
    },
    removeUserPermissionInCollection: async ({ caller, params }) => {
      await removeUserPermissionInCollection(services, caller, params.collectionId, params.userId);
      return { status: 204 };
    },
    updateTeamPermissionInCollection: async ({ caller, params, body }) => {
      await updateTeamPermissionInCollection(services, caller, params.collectionId, params.teamId, body.role);
      return { status: 204 };
    },
    removeTeamPermissionInCollection: async ({ caller, params }) => {
      await removeTeamPermissionInCollection(services, caller, params.collectionId, params.teamId);
      return { status: 204 };
    },
  };
}
