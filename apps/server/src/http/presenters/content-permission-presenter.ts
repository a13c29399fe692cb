import type { components } from '@quire/api-types';
import { canSeeMemberEmail, type MemberViewer } from '../../policies/member-policy.js';
import type { Role } from '../../policies/roles.js';
import type { PermissionViewer } from '../../services/content-permission-service.js';
import type { SitePermissionPage } from '../../services/site-permission-service.js';
import type { TeamDetailRow } from '../../stores/team-store.js';
import type { UserRow } from '../../stores/user-store.js';
import type { PresentContext } from './context.js';
import { presentTeam } from './team-presenter.js';
import { presentUser } from './user-presenter.js';

type ApiUserContentPermission = components['schemas']['UserContentPermission'];
type ApiTeamContentPermission = components['schemas']['TeamContentPermission'];
type ApiUserSitePermission = components['schemas']['UserSitePermission'];

function viewedUser(context: PresentContext, user: UserRow, viewer: PermissionViewer) {
  return presentUser(context, user, { withEmail: canSeeMemberEmail(viewer.membership, viewer.userId, user.id) });
}

/** A user's role on a space or collection: granted to them there, or (aggregate) what they have there. */
export function presentUserContentPermission(context: PresentContext, row: { role: Role; user: UserRow }, viewer: PermissionViewer): ApiUserContentPermission {
  return { permission: row.role, user: viewedUser(context, row.user, viewer) };
}

export function presentTeamContentPermission(context: PresentContext, row: { role: Role; team: TeamDetailRow }, viewer: MemberViewer): ApiTeamContentPermission {
  return { permission: row.role, team: presentTeam(context, viewer, row.team) };
}

export function presentUserSitePermission(context: PresentContext, row: SitePermissionPage['page']['rows'][number], viewer: PermissionViewer): ApiUserSitePermission {
  return { permission: row.role, user: viewedUser(context, row.user, viewer), origin: row.origin };
}
