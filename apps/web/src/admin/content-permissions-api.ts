import { unwrap } from '@quire/client';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';
import type { Role } from './roles.js';

/*
 * The permission operations of a space and of a collection have the same shapes under two paths; the screen
 * speaks to one of these two adaptors and stays the same for both.
 */

export type ContentKind = 's' | 'c';

export interface ContentPermissionsApi {
  title(): Promise<string>;
  users(): Promise<Awaited<ReturnType<typeof spaceUsers>>>;
  teams(): Promise<Awaited<ReturnType<typeof spaceTeams>>>;
  everyone(page: string | undefined): ReturnType<typeof spaceEveryone>;
  grant(body: { role: Role; users?: string[]; teams?: string[] }): Promise<void>;
  setUserRole(userId: string, role: Role): Promise<void>;
  setTeamRole(teamId: string, role: Role): Promise<void>;
  removeUser(userId: string): Promise<void>;
  removeTeam(teamId: string): Promise<void>;
}

const EVERYONE_PAGE_SIZE = 50;
const pageQuery = (page: string | undefined, limit: number) => ({ limit, ...(page ? { page } : {}) });

const spaceUsers = (spaceId: string) => all((page) => api.GET('/spaces/{spaceId}/permissions/users', { params: { path: { spaceId }, query: pageQuery(page, 1000) } }));
const spaceTeams = (spaceId: string) => all((page) => api.GET('/spaces/{spaceId}/permissions/teams', { params: { path: { spaceId }, query: pageQuery(page, 1000) } }));
const spaceEveryone = (spaceId: string, page: string | undefined) => unwrap(api.GET('/spaces/{spaceId}/permissions/aggregate', { params: { path: { spaceId }, query: pageQuery(page, EVERYONE_PAGE_SIZE) } }));

function spaceApi(spaceId: string): ContentPermissionsApi {
  const space = { spaceId };
  return {
    title: async () => {
      const found = await unwrap(api.GET('/spaces/{spaceId}', { params: { path: space } }));
      return found.title || 'Untitled space';
    },
    users: () => spaceUsers(spaceId),
    teams: () => spaceTeams(spaceId),
    everyone: (page) => spaceEveryone(spaceId, page),
    grant: async (body) => void (await unwrap(api.POST('/spaces/{spaceId}/permissions', { params: { path: space }, body }))),
    setUserRole: async (userId, role) => void (await unwrap(api.PATCH('/spaces/{spaceId}/permissions/users/{userId}', { params: { path: { spaceId, userId } }, body: { role } }))),
    setTeamRole: async (teamId, role) => void (await unwrap(api.PATCH('/spaces/{spaceId}/permissions/teams/{teamId}', { params: { path: { spaceId, teamId } }, body: { role } }))),
    removeUser: async (userId) => void (await unwrap(api.DELETE('/spaces/{spaceId}/permissions/users/{userId}', { params: { path: { spaceId, userId } } }))),
    removeTeam: async (teamId) => void (await unwrap(api.DELETE('/spaces/{spaceId}/permissions/teams/{teamId}', { params: { path: { spaceId, teamId } } }))),
  };
}

function collectionApi(collectionId: string): ContentPermissionsApi {
  const collection = { collectionId };
  return {
    title: async () => (await unwrap(api.GET('/collections/{collectionId}', { params: { path: collection } }))).title,
    users: () => all((page) => api.GET('/collections/{collectionId}/permissions/users', { params: { path: collection, query: pageQuery(page, 1000) } })),
    teams: () => all((page) => api.GET('/collections/{collectionId}/permissions/teams', { params: { path: collection, query: pageQuery(page, 1000) } })),
    everyone: (page) => unwrap(api.GET('/collections/{collectionId}/permissions/aggregate', { params: { path: collection, query: pageQuery(page, EVERYONE_PAGE_SIZE) } })),
    grant: async (body) => void (await unwrap(api.POST('/collections/{collectionId}/permissions', { params: { path: collection }, body }))),
    setUserRole: async (userId, role) => void (await unwrap(api.PATCH('/collections/{collectionId}/permissions/users/{userId}', { params: { path: { collectionId, userId } }, body: { role } }))),
    setTeamRole: async (teamId, role) => void (await unwrap(api.PATCH('/collections/{collectionId}/permissions/teams/{teamId}', { params: { path: { collectionId, teamId } }, body: { role } }))),
    removeUser: async (userId) => void (await unwrap(api.DELETE('/collections/{collectionId}/permissions/users/{userId}', { params: { path: { collectionId, userId } } }))),
    removeTeam: async (teamId) => void (await unwrap(api.DELETE('/collections/{collectionId}/permissions/teams/{teamId}', { params: { path: { collectionId, teamId } } }))),
  };
}

export function contentPermissionsApi(kind: ContentKind, contentId: string): ContentPermissionsApi {
  return kind === 's' ? spaceApi(contentId) : collectionApi(contentId);
}
