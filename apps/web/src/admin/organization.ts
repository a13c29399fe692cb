import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useParams } from 'react-router';
import { api } from '../api/client.js';

/** The organization of the settings area, from the same cache entry as the organization screen. */
export function useOrganization(organizationId: string) {
  return useQuery({
    queryKey: ['organization', organizationId],
    queryFn: () => unwrap(api.GET('/orgs/{organizationId}', { params: { path: { organizationId } } })),
  });
}

export function useOrganizationId(): string {
  return useParams().organizationId!;
}

/** Where the settings screens keep their lists in the cache: changes invalidate this prefix. */
export const adminKey = (organizationId: string, ...rest: unknown[]) => ['organization', organizationId, 'admin', ...rest];

export const settingsPath = (organizationId: string, rest = '') => `/o/${encodeURIComponent(organizationId)}/settings${rest ? `/${rest}` : ''}`;
