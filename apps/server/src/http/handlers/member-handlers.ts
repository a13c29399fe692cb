import {
  getMemberInOrganizationById,
  listMembersInOrganizationById,
  listSpacesForOrganizationMember,
  updateOrganizationMemberLastSeenAt,
  removeMemberFromOrganizationById,
  setUserAsSSOMemberForOrganization,
  updateMemberInOrganizationById,
} from '../../services/member-service.js';
import { listAnswer } from '../../pagination.js';
import { presentMember, presentMemberSpace } from '../presenters/member-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The members of an organization. */
export function memberHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listMembersInOrganizationById: async ({ caller, params, query }) => {
      const { viewer, page } = await listMembersInOrganizationById(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentMember(present, viewer, row)) };
    },

    getMemberInOrganizationById: async ({ caller, params }) => {
      const { viewer, member } = await getMemberInOrganizationById(services, caller, params.organizationId, params.userId);
      return { status: 200, body: presentMember(present, viewer, member) };
    },

    updateMemberInOrganizationById: async ({ caller, params, body }) => {
      const { viewer, member } = await updateMemberInOrganizationById(services, caller, params.organizationId, params.userId, body.role);
      return { status: 200, body: presentMember(present, viewer, member) };
    },

    removeMemberFromOrganizationById: async ({ caller, params }) => {
      await removeMemberFromOrganizationById(services, caller, params.organizationId, params.userId);
      return { status: 204 };
    },

    setUserAsSSOMemberForOrganization: async ({ caller, params }) => {
      const { viewer, member } = await setUserAsSSOMemberForOrganization(services, caller, params.organizationId, params.userId);
      return { status: 200, body: presentMember(present, viewer, member) };
    },

    listSpacesForOrganizationMember: async ({ caller, params, query }) => {
      const page = await listSpacesForOrganizationMember(services, caller, params.organizationId, params.userId, query);
      return { status: 200, body: listAnswer(page, (row) => presentMemberSpace(present, row)) };
    },

    updateOrganizationMemberLastSeenAt: async ({ caller, params }) => ({
      status: 200,
      body: await updateOrganizationMemberLastSeenAt(services, caller, params.organizationId),
    }),
  };
}
