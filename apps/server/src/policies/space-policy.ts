import type { components } from '@quire/api-types';
import { atLeast, type RoleOrGuest } from './roles.js';
import { canViewContent } from './visibility-policy.js';

export type SpacePermissions = components['schemas']['Space']['permissions'];
export type SpacePermission = keyof SpacePermissions;

/** What the space policy needs to know about a space besides the caller's role on it. */
export interface SpaceState {
  editMode: 'live' | 'locked';
  deleted: boolean;
}

export function spaceStateOf(space: { edit_mode: string; deleted_at: string | null }): SpaceState {
  return { editMode: space.edit_mode === 'locked' ? 'locked' : 'live', deleted: space.deleted_at !== null };
}

/**
 * What the caller may do with a space. A locked space refuses every change of its content, to everyone,
 * until it is live again; settings (including unlocking it) stay with its administrators. A deleted space
 * can only be looked at and restored: every other operation treats it as absent.
 */
export function spacePermissions(role: RoleOrGuest, state: SpaceState): SpacePermissions {
  const view = canViewContent(role);
  const admin = atLeast(role, 'admin');
  if (state.deleted) {
    return { view, access: false, admin, viewInviteLinks: false, edit: false, triggerGitSync: false, comment: false, merge: false, review: false, installIntegration: false };
  }
  const live = state.editMode === 'live';
  return {
    view,
    access: view,
    admin,
    viewInviteLinks: admin,
    edit: live && atLeast(role, 'edit'),
    triggerGitSync: live && atLeast(role, 'edit'),
    comment: atLeast(role, 'comment'),
    merge: live && atLeast(role, 'review'),
    review: atLeast(role, 'review'),
    installIntegration: admin,
  };
}

/** Why a permission is refused, in words for the client: the lock, or the role. */
export function refusalReason(permission: SpacePermission, role: RoleOrGuest, state: SpaceState): string {
  if (!state.deleted && state.editMode === 'locked' && spacePermissions(role, { ...state, editMode: 'live' })[permission]) {
    return 'The space is locked: its content cannot be changed until its edit mode is live again';
  }
  return `You need the ${permission} permission of this space`;
}
