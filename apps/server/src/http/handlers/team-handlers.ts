import {
  addMemberToTeam,
  createTeam,
  getTeamInOrganization,
  listMembersOfTeam,
  listTeamsInOrganization,
  listTeamsOfOrganizationMember,
  removeMemberFromTeam,
  removeTeam,
  renameTeam,
  updateTeamMembers,
} from '../../services/team-service.js';
import { listAnswer } from '../pagination.js';
import { presentMemberTeam, presentTeam, presentTeamMembership } from '../presenters/team-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The teams of an organization and their members. */
export function teamHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listTeamsInOrganizationById: async ({ caller, params, query }) => {
      const { viewer, page } = await listTeamsInOrganization(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentTeam(present, viewer, row)) };
    },

    createOrganizationTeam: async ({ caller, params, body }) => {
      const { viewer, team } = await createTeam(services, caller, params.organizationId, body);
      return { status: 201, body: presentTeam(present, viewer, team) };
    },

    getTeamInOrganizationById: async ({ caller, params }) => {
      const { viewer, team } = await getTeamInOrganization(services, caller, params.organizationId, params.teamId);
      return { status: 200, body: presentTeam(present, viewer, team) };
    },

    updateTeamInOrganizationById: async ({ caller, params, body }) => {
      const { viewer, team } = await renameTeam(services, caller, params.organizationId, params.teamId, body);
      return { status: 200, body: presentTeam(present, viewer, team) };
    },

    removeTeamFromOrganizationById: async ({ caller, params }) => {
      await removeTeam(services, caller, params.organizationId, params.teamId);
      return { status: 204 };
    },

    listTeamMembersInOrganizationById: async ({ caller, params, query }) => {
      const { viewer, callerRole, page } = await listMembersOfTeam(services, caller, params.organizationId, params.teamId, query);
      return { status: 200, body: listAnswer(page, (row) => presentTeamMembership(present, viewer, callerRole, row)) };
    },

    updateMembersInOrganizationTeam: async ({ caller, params, body }) => {
      await updateTeamMembers(services, caller, params.organizationId, params.teamId, body);
      return { status: 204 };
    },

    addMemberToOrganizationTeamById: async ({ caller, params, body }) => {
      await addMemberToTeam(services, caller, params.organizationId, params.teamId, params.userId, body?.role);
      return { status: 204 };
    },

    deleteMemberFromOrganizationTeamById: async ({ caller, params }) => {
      await removeMemberFromTeam(services, caller, params.organizationId, params.teamId, params.userId);
      return { status: 204 };
    },

    listTeamsForOrganizationMember: async ({ caller, params, query }) => {
      const { viewer, page } = await listTeamsOfOrganizationMember(services, caller, params.organizationId, params.userId, query);
      return { status: 200, body: listAnswer(page, (row) => presentMemberTeam(present, viewer, row)) };
    },
  };
}
