import { canViewOrganization, type OrganizationMembership } from './organization-policy.js';
import { highest, type DefaultLevel, type Role, type RoleOrGuest } from './roles.js';

/**
 * Who sees which collections and spaces, and with which role: the TypeScript form of the rule, which every
 * read of one object (a space, a collection, and through the space its change requests, comments, search...)
 * and every `permissions` object uses. Lists filter in SQL instead, with `stores/visibility.ts`, which is the
 * only SQL form of the same rule; `stores/visibility.test.ts` runs both over every combination of roles and
 * levels on both databases and requires them to agree.
 *
 * Roles granted on a space or a collection to a user or to their teams are the `grants` input of
 * `contentRole` and the granted ranks of `stores/visibility.ts`: the highest applicable role wins. A new
 * way of getting a role on content (share links, SSO sessions) would be one more such input.
 */

/**
 * How a caller's organization membership reaches the content of the organization, before any level of the
 * content is read. This is the one place of the shortcut "administrators see everything, guests nothing
 * (but what is granted to them), outsiders and suspended members nothing at all".
 */
export type OrganizationReach =
  /** Organization admins administer all content, whatever its default levels. */
  | { kind: 'everything' }
  /** Members: their organization role, on the content whose default levels let it through. */
  | { kind: 'default-levels'; role: Role }
  /** Guests: default levels do not apply to them, only roles granted to them or their teams. */
  | { kind: 'granted-only' }
  /** Outsiders and suspended members: nothing, granted or not. */
  | { kind: 'nothing' };

export function organizationReach(membership: OrganizationMembership | undefined): OrganizationReach {
  if (!canViewOrganization(membership)) return { kind: 'nothing' };
  if (membership.role === null) return { kind: 'granted-only' };
  if (membership.role === 'admin') return { kind: 'everything' };
  return { kind: 'default-levels', role: membership.role };
}

/**
 * Whether roles granted on content can change the caller's role there: not for an admin, who has every role
 * already, nor for an outsider or a suspended member, who has none whatever is granted. Reads of one object
 * load the grants only when they can.
 */
export function grantsApply(membership: OrganizationMembership | undefined): boolean {
  const { kind } = organizationReach(membership);
  return kind === 'default-levels' || kind === 'granted-only';
}

/** The caller, as the visibility rule needs them: their id (what grants will name) and their membership. */
export interface ContentViewer {
  userId: string;
  membership: OrganizationMembership | undefined;
}

/** Everything that can give the caller a role on one collection or space. */
export interface ContentRoleSources {
  membership: OrganizationMembership | undefined;
  /**
   * Default levels from the content outwards: a space's own level, then those of its collection and that
   * collection's parents; a collection's own level, then its parents'. Empty for content hanging from the
   * organization alone.
   */
  defaultLevels: readonly DefaultLevel[];
  /**
   * Roles granted to the caller or to one of their teams on the content itself or on any collection above
   * it (a grant on a collection applies to everything inside it). Empty when nothing is granted.
   */
  grants: readonly Role[];
}

/**
 * Resolves a chain of default levels, nearest first, to a role: the first level that is not `inherit` wins
 * (null closes the content); when every level inherits, the organization role applies.
 */
function throughDefaultLevels(chain: readonly DefaultLevel[], organizationRole: Role): RoleOrGuest {
  for (const level of chain) if (level !== 'inherit') return level;
  return organizationRole;
}

/** The caller's role on a collection or space; null when they cannot see it (it then answers 404). */
export function contentRole({ membership, defaultLevels, grants }: ContentRoleSources): RoleOrGuest {
  const reach = organizationReach(membership);
  switch (reach.kind) {
    case 'everything':
      return 'admin';
    case 'nothing':
      return null;
    case 'granted-only':
      return highest(...grants);
    case 'default-levels':
      // A grant raises a member's role but never lowers it, and reaches content closed by default levels.
      return highest(throughDefaultLevels(defaultLevels, reach.role), ...grants);
  }
}

/** Seeing content is having any role on it; content the caller cannot see answers 404. */
export function canViewContent(role: RoleOrGuest): boolean {
  return role !== null;
}
