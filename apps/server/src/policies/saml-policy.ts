import { canAdministerOrganization, canViewOrganization, type OrganizationMembership } from './organization-policy.js';

/** Single sign-on decides who gets into the organization and with which role, so only admins configure it. */
export function canManageSamlProviders(membership: OrganizationMembership | undefined): boolean {
  return canAdministerOrganization(membership);
}

/** The sign-in entry points are shown to whoever sees the organization. */
export function canListSsoLogins(membership: OrganizationMembership | undefined): boolean {
  return canViewOrganization(membership);
}

/** A provider can sign people in once the identity provider's side is complete. */
export function isSamlProviderActive(row: { sso_url: string | null; entity_id: string | null; certificate: string | null }): boolean {
  return row.sso_url !== null && row.entity_id !== null && row.certificate !== null;
}
