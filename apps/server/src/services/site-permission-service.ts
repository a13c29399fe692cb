import { ForbiddenError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { rank, type RoleOrGuest } from '../policies/roles.js';
import { canManageSites, canReadSites } from '../policies/site-policy.js';
import type { KeysetPage } from '../stores/keyset.js';
import { allSiteSpaces } from '../stores/site-space-store.js';
import type { UserRow } from '../stores/user-store.js';
import type { Caller } from './caller.js';
import type { PermissionViewer } from './content-permission-service.js';
import type { ServiceContext } from './context.js';
import { memberRolesOn, pageByUserId, spaceScopeOf } from './effective-roles.js';
import { readableSite } from './site-access.js';

/*
 * Who reads a docs site and with which role (`listPermissionsAggregateInSite`). Members and guests read the
 * organization's sites (`canReadSites`); each one's role is their organization role, unless a space the site
 * publishes gives them a higher one by `contentRole` (a guest's grant, a member's grant above their role),
 * which is then the origin named.
 */

export type SitePermissionOrigin = { type: 'space'; space: string } | { type: 'organization'; organization: string };

export interface SitePermissionPage {
  page: KeysetPage<{ user: UserRow; role: RoleOrGuest; origin: SitePermissionOrigin }>;
  viewer: PermissionViewer;
}

export async function listPermissionsAggregateInSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { page?: string; limit?: number }): Promise<SitePermissionPage> {
  const { after, limit } = pageRequest(query, 1);
  const { who } = await readableSite(context, caller, organizationId, siteId);
  if (!canManageSites(who.membership)) throw new ForbiddenError('Only organization admins list who reads a site');
  const spaces = [...new Map((await allSiteSpaces(context.db, organizationId, siteId, undefined))
    .filter(({ space }) => space.deleted_at === null).map(({ space }) => [space.id, space])).values()];
  const scopes = await Promise.all(spaces.map((space) => spaceScopeOf(context, space)));
  const rows = (await memberRolesOn(context, organizationId, scopes)).flatMap(({ user, membership, roles }) => {
    if (!canReadSites(membership)) return [];
    let role: RoleOrGuest = membership.role;
    let origin: SitePermissionOrigin = { type: 'organization', organization: organizationId };
    roles.forEach((spaceRole, index) => {
      if (rank(spaceRole) > rank(role)) {
        role = spaceRole;
        origin = { type: 'space', space: spaces[index]!.id };
      }
    });
    return [{ user, role, origin }];
  });
  return { page: pageByUserId(rows, after, limit), viewer: who.viewer };
}
