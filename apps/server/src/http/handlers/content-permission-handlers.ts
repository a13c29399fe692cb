import { listAnswer } from '../../pagination.js';
import {
  inviteToCollection,
  inviteToSpace,
  listPermissionsAggregateInCollection,
  listPermissionsAggregateInSpace,
  listTeamPermissionsInCollection,
  listTeamPermissionsInSpace,
  listUserPermissionsInCollection,
  listUserPermissionsInSpace,
  removeTeamFromCollection,
  removeTeamFromSpace,
  removeUserFromCollection,
  removeUserFromSpace,
  updateTeamPermissionInCollection,
  updateTeamPermissionInSpace,
  updateUserPermissionInCollection,
  updateUserPermissionInSpace,
  type AggregatePage,
  type TeamPermissionPage,
  type UserPermissionPage,
} from '../../services/content-permission-service.js';
import { listPermissionsAggregateInSite } from '../../services/site-permission-service.js';
import { presentTeamContentPermission, presentUserContentPermission, presentUserSitePermission } from '../presenters/content-permission-presenter.js';
import type { PresentContext } from '../presenters/context.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

function usersOf(present: PresentContext, { page, viewer }: UserPermissionPage | AggregatePage) {
  return listAnswer(page, (row) => presentUserContentPermission(present, row, viewer));
}

function teamsOf(present: PresentContext, { page, viewer }: TeamPermissionPage) {
  return listAnswer(page, (row) => presentTeamContentPermission(present, row, viewer));
}

/** The public API answers 205 when it removed a grant and 204 when there was none. */
const removed = (done: boolean) => ({ status: done ? (205 as const) : (204 as const) });

/** Content permissions: roles granted on spaces and collections to users and teams. */
export function contentPermissionHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listUserPermissionsInSpace: async ({ caller, params, query }) => ({ status: 200, body: usersOf(present, await listUserPermissionsInSpace(services, caller, params.spaceId, query)) }),
    listTeamPermissionsInSpace: async ({ caller, params, query }) => ({ status: 200, body: teamsOf(present, await listTeamPermissionsInSpace(services, caller, params.spaceId, query)) }),
    listPermissionsAggregateInSpace: async ({ caller, params, query }) => ({ status: 200, body: usersOf(present, await listPermissionsAggregateInSpace(services, caller, params.spaceId, query)) }),
    inviteToSpace: async ({ caller, params, body }) => {
      await inviteToSpace(services, caller, params.spaceId, body);
      return { status: 204 };
    },
    updateUserPermissionInSpace: async ({ caller, params, body }) => {
      await updateUserPermissionInSpace(services, caller, params.spaceId, params.userId, body.role);
      return { status: 204 };
    },
    removeUserFromSpace: async ({ caller, params }) => removed(await removeUserFromSpace(services, caller, params.spaceId, params.userId)),
    updateTeamPermissionInSpace: async ({ caller, params, body }) => {
      await updateTeamPermissionInSpace(services, caller, params.spaceId, params.teamId, body.role);
      return { status: 204 };
    },
    removeTeamFromSpace: async ({ caller, params }) => removed(await removeTeamFromSpace(services, caller, params.spaceId, params.teamId)),
    listUserPermissionsInCollection: async ({ caller, params, query }) => ({ status: 200, body: usersOf(present, await listUserPermissionsInCollection(services, caller, params.collectionId, query)) }),
    listTeamPermissionsInCollection: async ({ caller, params, query }) => ({ status: 200, body: teamsOf(present, await listTeamPermissionsInCollection(services, caller, params.collectionId, query)) }),
    listPermissionsAggregateInCollection: async ({ caller, params, query }) => ({ status: 200, body: usersOf(present, await listPermissionsAggregateInCollection(services, caller, params.collectionId, query)) }),
    inviteToCollection: async ({ caller, params, body }) => {
      await inviteToCollection(services, caller, params.collectionId, body);
      return { status: 204 };
    },
    updateUserPermissionInCollection: async ({ caller, params, body }) => {
      await updateUserPermissionInCollection(services, caller, params.collectionId, params.userId, body.role);
      return { status: 204 };
    },
    removeUserFromCollection: async ({ caller, params }) => removed(await removeUserFromCollection(services, caller, params.collectionId, params.userId)),
    updateTeamPermissionInCollection: async ({ caller, params, body }) => {
      await updateTeamPermissionInCollection(services, caller, params.collectionId, params.teamId, body.role);
      return { status: 204 };
    },
    removeTeamFromCollection: async ({ caller, params }) => removed(await removeTeamFromCollection(services, caller, params.collectionId, params.teamId)),
    // A site's readers are listed with the content permissions: the same roles, decided the same way.
    listPermissionsAggregateInSite: async ({ caller, params, query }) => {
      const { page, viewer } = await listPermissionsAggregateInSite(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: listAnswer(page, (row) => presentUserSitePermission(present, row, viewer)) };
    },
  };
}
