import type { components } from '@quire/api-types';
import { collectionPermissions } from '../../policies/collection-policy.js';
import { parseDefaultLevel } from '../../policies/roles.js';
import type { CollectionWithRole } from '../../services/collection-service.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';

export type ApiCollection = components['schemas']['Collection'];

export function presentCollection(context: PresentContext, { collection: row, role }: CollectionWithRole): ApiCollection {
  const id = encodeURIComponent(row.id);
  return {
    object: 'collection',
    id: row.id,
    title: row.title,
    ...(row.description ? { description: row.description } : {}),
    organization: row.organization_id,
    ...(row.parent_id ? { parent: row.parent_id } : {}),
    defaultLevel: parseDefaultLevel(row.default_level),
    urls: {
      location: apiUrl(context, `/collections/${id}`),
      app: appUrl(context, `/o/${encodeURIComponent(row.organization_id)}/c/${id}`),
    },
    permissions: collectionPermissions(role),
  };
}
