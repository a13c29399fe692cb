import type { components } from '@quire/api-types';
import { integrationPermissions } from '../../policies/integration-policy.js';
import { membershipFromRow } from '../../policies/organization-policy.js';
import type { IntegrationView } from '../../services/integration-service.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';
import { presentOrganization } from './organization-presenter.js';

export type ApiIntegration = components['schemas']['Integration'];

/** The integration as the API shows it; its secrets, script and owner's private settings are never part of it. */
export function presentIntegration(context: PresentContext, row: IntegrationView): ApiIntegration {
  const definition = JSON.parse(row.current.definition) as Partial<ApiIntegration>;
  const name = encodeURIComponent(row.name);
  const assets = `${context.publicUrl}/integration-assets/${name}/${row.version}/${row.assetsKey}/`;
  const previews = (JSON.parse(row.current.preview_images) as unknown[]).map((_, index) => `${assets}preview-${index + 1}`);
  // Someone outside the owner organization sees it with no permission on it.
  const membership = row.ownerMembership ?? { organization_id: row.owner_id, user_id: '', role: null, joined_at: row.created_at, last_seen_at: null, sso: 0, disabled: 1 };
  return {
    object: 'integration',
    name: row.name,
    version: row.version,
    title: row.title,
    description: definition.description ?? '',
    ...(definition.summary !== undefined ? { summary: definition.summary } : {}),
    previewImages: previews,
    target: row.target as ApiIntegration['target'],
    verified: row.verified !== 0,
    visibility: row.visibility as ApiIntegration['visibility'],
    scopes: definition.scopes ?? [],
    categories: definition.categories ?? [],
    ...(definition.blocks !== undefined ? { blocks: definition.blocks } : {}),
    ...(definition.contentSources !== undefined ? { contentSources: definition.contentSources } : {}),
    ...(definition.configurations !== undefined ? { configurations: definition.configurations } : {}),
    externalLinks: definition.externalLinks ?? [],
    owner: presentOrganization(context, { organization: row.owner, membership, ownsTeam: false }),
    urls: {
      location: apiUrl(context, `/integrations/${name}`),
      ...(row.current.icon_blob ? { icon: `${assets}icon` } : {}),
      app: appUrl(context, `/integrations/${name}`),
      assets,
      publicEndpoint: `${context.publicUrl}/integrations/${name}/public/`,
    },
    permissions: integrationPermissions(row.ownerMembership ? membershipFromRow(row.ownerMembership) : undefined),
    ...(definition.contentSecurityPolicy !== undefined ? { contentSecurityPolicy: definition.contentSecurityPolicy } : {}),
  };
}
