import { canSeeMemberEmail } from './member-policy.js';
import { canViewOrganization, type OrganizationMembership } from './organization-policy.js';

/*
 * Who reads and who changes a user's profile. `shared` is the caller's memberships in the organizations the
 * user belongs to: people read each other through an organization they both see, and nobody else exists for
 * them (404, like an unknown id).
 */

export function canReadUser(callerId: string, userId: string, shared: readonly OrganizationMembership[]): boolean {
  return callerId === userId || shared.some((membership) => canViewOrganization(membership));
}

/** The address follows the member rule: the user themself, and admins of an organization they share. */
export function canSeeUserEmail(callerId: string, userId: string, shared: readonly OrganizationMembership[]): boolean {
  return callerId === userId || shared.some((membership) => canSeeMemberEmail(membership, callerId, userId));
}

/** A profile is its owner's: nobody else, an organization admin included, renames someone. */
export function canUpdateUser(callerId: string, userId: string): boolean {
  return callerId === userId;
}
