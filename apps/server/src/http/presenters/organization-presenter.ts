import type { components } from '@quire/api-types';
import { membershipFromRow, organizationPermissions } from '../../policies/organization-policy.js';
import type { OrganizationWithMembership } from '../../stores/organization-store.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';

export type ApiOrganization = components['schemas']['Organization'];

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * A self-hosted installation has no billing, but typed clients of the public API require `plan` and `trial`:
 * every feature is available (the top plan) and no trial can be started.
 */
const SELF_HOSTED_PLAN = 'enterprise_2024' as const;
const NO_TRIAL = { status: 'notapplicable' as const, count: 0 };

export function presentOrganization(context: PresentContext, { organization: row, membership, ownsTeam }: OrganizationWithMembership): ApiOrganization {
  const id = encodeURIComponent(row.id);
  return {
    object: 'organization',
    id: row.id,
    plan: SELF_HOSTED_PLAN,
    title: row.title,
    createdAt: row.created_at,
    emailDomains: parseJson<string[]>(row.email_domains, []),
    type: row.type,
    ...(row.hostname ? { hostname: row.hostname } : {}),
    ...(row.use_case ? { useCase: row.use_case as NonNullable<ApiOrganization['useCase']> } : {}),
    ...(row.community_type ? { communityType: row.community_type as NonNullable<ApiOrganization['communityType']> } : {}),
    defaultRole: row.default_role as ApiOrganization['defaultRole'],
    ...(row.default_site_id ? { defaultContent: { type: 'site' as const, site: row.default_site_id } } : {}),
    sso: row.sso !== 0,
    ai: row.ai !== 0,
    inviteLinks: row.invite_links !== 0,
    mergeRules: parseJson<ApiOrganization['mergeRules']>(row.merge_rules, { type: 'none' }),
    ...(row.custom_hostname ? { customHostname: row.custom_hostname } : {}),
    urls: {
      location: apiUrl(context, `/orgs/${id}`),
      app: appUrl(context, `/o/${id}`),
      ...(row.logo_url ? { logo: row.logo_url } : {}),
    },
    trial: { ...NO_TRIAL },
    permissions: organizationPermissions(membershipFromRow(membership, ownsTeam)),
  };
}
