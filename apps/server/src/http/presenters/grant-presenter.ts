import type { components } from '@quire/api-types';
import { canSeeMemberEmail } from '../../policies/member-policy.js';
import type { GrantPage } from '../../services/content-grant-service.js';
import type { GrantListing } from '../../stores/grant-store.js';
import type { PresentContext } from './context.js';
import { presentUser } from './user-presenter.js';

type ApiContentPermission = components['schemas']['ContentPermission'];

/** One role granted on a space or collection, to a user or a team. */
export function presentGrant(context: PresentContext, grant: GrantListing, viewer: GrantPage['viewer']): ApiContentPermission {
  return {
    object: 'content-permission',
    role: grant.role,
    ...(grant.user ? { user: presentUser(context, grant.user, { withEmail: canSeeMemberEmail(viewer.membership, viewer.userId, grant.user.id) }) } : {}),
    ...(grant.team ? { team: grant.team } : {}),
  };
}
