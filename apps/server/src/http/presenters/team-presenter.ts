import type { components } from '@quire/api-types';
import type { TeamMemberRole } from '../../db/schema.js';
import type { MemberViewer } from '../../policies/member-policy.js';
import { teamMembershipPermissions, teamPermissions } from '../../policies/team-policy.js';
import type { TeamDetailRow, TeamMemberDetailRow } from '../../stores/team-store.js';
import type { PresentContext } from './context.js';
import { presentMember } from './member-presenter.js';

export type ApiTeam = components['schemas']['Team'];
export type ApiMemberTeam = components['schemas']['MemberTeam'];
export type ApiTeamMembership = components['schemas']['TeamMembership'];

export function presentTeam(_context: PresentContext, viewer: MemberViewer, row: TeamDetailRow): ApiTeam {
  return {
    object: 'team',
    id: row.id,
    title: row.title,
    members: row.members,
    spaces: row.spaces,
    createdAt: row.created_at,
    permissions: teamPermissions(viewer.membership, row.caller_role),
  };
}

/** A team of a member, with that member's role in it. */
export function presentMemberTeam(context: PresentContext, viewer: MemberViewer, row: TeamDetailRow & { member_role: TeamMemberRole }): ApiMemberTeam {
  return { team: presentTeam(context, viewer, row), member: { role: row.member_role } };
}

/** A member of a team; `callerTeamRole` is the viewer's own role in that team. */
export function presentTeamMembership(
  context: PresentContext,
  viewer: MemberViewer,
  callerTeamRole: TeamMemberRole | null,
  row: TeamMemberDetailRow,
): ApiTeamMembership {
  return {
    organization: presentMember(context, viewer, row),
    team: { role: row.team_role },
    permissions: teamMembershipPermissions(teamPermissions(viewer.membership, callerTeamRole)),
  };
}
