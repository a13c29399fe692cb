import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { api } from './client.js';
import { getCurrentSession } from './session.js';

/** Query keys and reads shared by several screens, so they share one cache entry. */

export const sessionQuery = { queryKey: ['session'], queryFn: getCurrentSession, staleTime: 60_000 } as const;

export function useSession() {
  return useQuery(sessionQuery);
}

export function useSpace(spaceId: string) {
  return useQuery({
    queryKey: ['space', spaceId],
    queryFn: () => unwrap(api.GET('/spaces/{spaceId}', { params: { path: { spaceId } } })),
  });
}

export function useCurrentRevision(spaceId: string) {
  return useQuery({
    queryKey: ['space', spaceId, 'revision'],
    queryFn: () => unwrap(api.GET('/spaces/{spaceId}/content', { params: { path: { spaceId } } })),
  });
}

export function useChangeRequest(spaceId: string, changeRequestId: string) {
  return useQuery({
    queryKey: ['space', spaceId, 'change-request', changeRequestId],
    queryFn: () => unwrap(api.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: { spaceId, changeRequestId } } })),
  });
}

export function useChangeRequestRevision(spaceId: string, changeRequestId: string) {
  return useQuery({
    queryKey: ['space', spaceId, 'change-request', changeRequestId, 'revision'],
    queryFn: () => unwrap(api.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: { spaceId, changeRequestId } } })),
  });
}

/** The path part of a `urls.app` address: the app's own route for the resource. */
export function appPath(appUrl: string): string {
  const url = new URL(appUrl, window.location.origin);
  return url.pathname + url.hash;
}
