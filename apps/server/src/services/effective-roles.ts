import type { KeysetPage } from '../stores/keyset.js';
import { membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import { parseDefaultLevel, type DefaultLevel, type Role, type RoleOrGuest } from '../policies/roles.js';
import { contentRole, grantsApply } from '../policies/visibility-policy.js';
import { grantsOnContent, type GrantRecord } from '../stores/content-permission-store.js';
import { listMembershipsWithUsers } from '../stores/member-store.js';
import type { SpaceRow } from '../stores/space-store.js';
import { findTeamMemberIds } from '../stores/team-store.js';
import type { UserRow } from '../stores/user-store.js';
import type { ServiceContext } from './context.js';
import { collectionsAbove } from './space-access.js';

/*
 * Every member's role on some content, for the aggregate lists. Each role is `contentRole` of
 * policies/visibility-policy.ts fed exactly as a read of the object by that member feeds it (their membership,
 * the default levels from the object outwards, the grants to them or their teams on the object and the
 * collections above it), so the list says what every request of theirs is decided with, never a second rule.
 */

/** One space or collection as roles on it are decided: default levels from it outwards, and whose grants apply. */
export interface ContentRoleScope {
  defaultLevels: DefaultLevel[];
  spaceIds: string[];
  collectionIds: string[];
}

export interface MemberRoles {
  user: UserRow;
  membership: OrganizationMembership;
  /** The member's role on each scope, in the order of the scopes; null where they cannot see it. */
  roles: RoleOrGuest[];
}

export function spaceScope(space: SpaceRow, collectionChain: DefaultLevel[], collectionIds: string[]): ContentRoleScope {
  return { defaultLevels: [parseDefaultLevel(space.default_level), ...collectionChain], spaceIds: [space.id], collectionIds };
}

export async function spaceScopeOf(context: ServiceContext, space: SpaceRow): Promise<ContentRoleScope> {
  const { collectionChain, collectionIds } = await collectionsAbove(context, space);
  return spaceScope(space, collectionChain, collectionIds);
}

/** The roles the grants give one user: theirs, and their teams'. */
function grantedTo(userId: string, grants: readonly GrantRecord[], teamMembers: Map<string, string[]>): Role[] {
  return grants.filter(({ principal }) => (principal.kind === 'user' ? principal.id === userId : teamMembers.get(principal.id)?.includes(userId) ?? false)).map((grant) => grant.role);
}

/** Every member and guest of the organization (by user id) with their role on each scope. */
export async function memberRolesOn(context: ServiceContext, organizationId: string, scopes: readonly ContentRoleScope[]): Promise<MemberRoles[]> {
  const grants = await Promise.all(scopes.map((scope) => grantsOnContent(context.db, scope.spaceIds, scope.collectionIds)));
  const teamIds = [...new Set(grants.flat().filter((grant) => grant.principal.kind === 'team').map((grant) => grant.principal.id))];
  const teamMembers = await findTeamMemberIds(context.db, teamIds);
  const members = await listMembershipsWithUsers(context.db, organizationId);
  // Ordered by code unit, as `pageByUserId` compares ids (a database collation may order them otherwise).
  members.sort((a, b) => (a.user.id < b.user.id ? -1 : a.user.id > b.user.id ? 1 : 0));
  return members.map((row) => {
    const membership = membershipFromRow(row);
    const roles = scopes.map((scope, index) => contentRole({
      membership,
      defaultLevels: scope.defaultLevels,
      grants: grantsApply(membership) ? grantedTo(row.user.id, grants[index]!, teamMembers) : [],
    }));
    return { user: row.user, membership, roles };
  });
}

/**
 * One page of rows already computed and ordered by user id, after the cursor's user id: these lists are
 * decided in TypeScript (above), so they are paged here rather than in SQL.
 */
export function pageByUserId<Row extends { user: UserRow }>(rows: readonly Row[], after: ReadonlyArray<string | number> | undefined, limit: number): KeysetPage<Row> {
  const rest = after === undefined ? rows : rows.filter((row) => row.user.id > String(after[0]));
  const page = rest.slice(0, limit);
  return { rows: page, count: rows.length, ...(rest.length > limit ? { nextKey: [page[page.length - 1]!.user.id] } : {}) };
}
