import { listAnswer } from '../../pagination.js';
import {
  createOrganizationInvite,
  deleteOrganizationInviteById,
  getOrganizationInviteLink,
  inviteUsersToOrganization,
  listOrganizationInviteLinks,
  listPendingOrganizationInvites,
  updateOrganizationInviteById,
} from '../../services/organization-invite-service.js';
import { acceptOrganizationInvite, joinOrganization, joinOrganizationWithInvite, previewOrganizationInvite } from '../../services/invite-join-service.js';
import { presentEmailInvite, presentInviteLink, presentInvitePreview, presentOrganizationInviteLink } from '../presenters/organization-invite-presenter.js';
import { presentUser } from '../presenters/user-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Invitations to an organization (the public API's organization-invites family) and joining. */
export function organizationInviteHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    inviteUsersToOrganization: async ({ caller, params, body }) => {
      const made = await inviteUsersToOrganization(services, caller, params.organizationId, body);
      return { status: 200, body: { users: [], invited: made.length, invites: made.map((record) => presentEmailInvite(present, record)) } };
    },
    listPendingOrganizationInvites: async ({ caller, params, query }) => {
      const page = await listPendingOrganizationInvites(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (record) => presentEmailInvite(present, record)) };
    },
    listOrganizationInviteLinks: async ({ caller, params, query }) => {
      const page = await listOrganizationInviteLinks(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (record) => presentOrganizationInviteLink(present, record)) };
    },
    createOrganizationInvite: async ({ caller, params, body }) => {
      return { status: 201, body: presentInviteLink(present, await createOrganizationInvite(services, caller, params.organizationId, body)) };
    },
    getOrganizationInviteLink: async ({ caller, params }) => {
      return { status: 200, body: presentInviteLink(present, await getOrganizationInviteLink(services, caller, params.organizationId, params.inviteId)) };
    },
    updateOrganizationInviteById: async ({ caller, params, body }) => {
      return { status: 200, body: presentInviteLink(present, await updateOrganizationInviteById(services, caller, params.organizationId, params.inviteId, body)) };
    },
    deleteOrganizationInviteById: async ({ caller, params }) => {
      const revoked = await deleteOrganizationInviteById(services, caller, params.organizationId, params.inviteId);
      return { status: revoked ? 205 : 204 };
    },
    joinOrganizationWithInvite: async ({ caller, params }) => {
      await joinOrganizationWithInvite(services, caller, params.organizationId, params.inviteSecret);
      return { status: 200, body: {} };
    },
    joinOrganization: async ({ caller, params }) => {
      await joinOrganization(services, caller, params.organizationId);
      return { status: 204 };
    },
    previewOrganizationInvite: async ({ body }) => {
      return { status: 200, body: presentInvitePreview(await previewOrganizationInvite(services, body)) };
    },
    acceptOrganizationInvite: async ({ body }) => {
      const accepted = await acceptOrganizationInvite(services, body);
      // The new person is the reader of this answer: their own address is theirs to see.
      return { status: 201, body: { object: 'organization-invite-acceptance', user: presentUser(present, accepted.user, { withEmail: true }), organizationId: accepted.organizationId, role: accepted.role } };
    },
  };
}
