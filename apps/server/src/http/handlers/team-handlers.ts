import {
  addMemberToOrganizationTeamById,
  createOrganizationTeam,
  getTeamInOrganizationById,
  listTeamMembersInOrganizationById,
  listTeamsInOrganizationById,
  listTeamsForOrganizationMember,
  deleteMemberFromOrganizationTeamById,
  removeTeamFromOrganizationById,
  updateTeamInOrganizationById,
  updateMembersInOrganizationTeam,
} from '../../services/team-service.js';
import { listAnswer } from '../../pagination.js';
import { presentMemberTeam, presentTeam, presentTeamMembership } from '../presenters/team-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The teams of an organization and their members. */
export function teamHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listTeamsInOrganizationById: async ({ caller, params, query }) => {
      const { viewer, page } = await listTeamsInOrganizationById(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentTeam(present, viewer, row)) };
    },

    createOrganizationTeam: async ({ caller, params, body }) => {
      const { viewer, team } = await createOrganizationTeam(services, caller, params.organizationId, body);
      return { status: 201, body: presentTeam(present, viewer, team) };
    },

    getTeamInOrganizationById: async ({ caller, params }) => {
      const { viewer, team } = await getTeamInOrganizationById(services, caller, params.organizationId, params.teamId);
      return { status: 200, body: presentTeam(present, viewer, team) };
    },

    updateTeamInOrganizationById: async ({ caller, params, body }) => {
      const { viewer, team } = await updateTeamInOrganizationById(services, caller, params.organizationId, params.teamId, body);
      return { status: 200, body: presentTeam(present, viewer, team) };
    },

    removeTeamFromOrganizationById: async ({ caller, params }) => {
      await removeTeamFromOrganizationById(services, caller, params.organizationId, params.teamId);
      return { status: 204 };
    },

    listTeamMembersInOrganizationById: async ({ caller, params, query }) => {
      const { viewer, callerRole, page } = await listTeamMembersInOrganizationById(services, caller, params.organizationId, params.teamId, query);
      return { status: 200, body: listAnswer(page, (row) => presentTeamMembership(present, viewer, callerRole, row)) };
    },

    updateMembersInOrganizationTeam: async ({ caller, params, body }) => {
      await updateMembersInOrganizationTeam(services, caller, params.organizationId, params.teamId, body);
      return { status: 204 };
    },

    addMemberToOrganizationTeamById: async ({ caller, params, body }) => {
      await addMemberToOrganizationTeamById(services, caller, params.organizationId, params.teamId, params.userId, body?.role);
      return { status: 204 };
    },

    deleteMemberFromOrganizationTeamById: async ({ caller, params }) => {
      await deleteMemberFromOrganizationTeamById(services, caller, params.organizationId, params.teamId, params.userId);
      return { status: 204 };
    },

    listTeamsForOrganizationMember: async ({ caller, params, query }) => {
      const { viewer, page } = await listTeamsForOrganizationMember(services, caller, params.organizationId, params.userId, query);
      return { status: 200, body: listAnswer(page, (row) => presentMemberTeam(present, viewer, row)) };
    },
  };
}
