import type { components } from '@quire/api-types';
import { canSeeMemberEmail, type MemberViewer } from '../../policies/member-policy.js';
import { parseRole } from '../../policies/roles.js';
import type { MemberSpaceView } from '../../services/member-service.js';
import type { MemberDetailRow } from '../../stores/member-store.js';
import type { PresentContext } from './context.js';
import { presentSpace } from './space-presenter.js';
import { presentUser } from './user-presenter.js';

export type ApiMember = components['schemas']['Member'];
export type ApiMemberSpace = components['schemas']['MemberSpace'];

export function presentMember(context: PresentContext, viewer: MemberViewer, row: MemberDetailRow): ApiMember {
  const user = { id: row.user_id, email: row.email, display_name: row.display_name, photo_url: row.photo_url, created_at: row.user_created_at };
  return {
    object: 'member',
    id: row.user_id,
    role: parseRole(row.role),
    user: presentUser(context, user, { withEmail: canSeeMemberEmail(viewer.membership, viewer.userId, row.user_id) }),
    disabled: row.disabled !== 0,
    joinedAt: row.joined_at,
    ...(row.last_seen_at ? { lastSeenAt: row.last_seen_at } : {}),
    sso: row.sso !== 0,
    spaces: row.spaces,
    teams: row.teams,
  };
}

/** A space a member can reach: the member's role on it, and the space as the caller sees it. */
export function presentMemberSpace(context: PresentContext, view: MemberSpaceView): ApiMemberSpace {
  return { permission: view.permission, space: presentSpace(context, view.space) };
}
