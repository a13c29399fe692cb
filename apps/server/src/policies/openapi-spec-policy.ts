import { canManageOpenApiSpecs, canViewOrganization, type OrganizationMembership } from './organization-policy.js';

export type OpenApiSpecVisibility = 'private' | 'public';

/** Members of the organization read its specifications and their versions; guests, invited to some content only, do not. */
export function canReadOpenApiSpecs(membership: OrganizationMembership | undefined): membership is OrganizationMembership {
  return canViewOrganization(membership) && membership.role !== null;
}

/** The raw document at a version's URL: anyone for a public specification, its readers for a private one. */
export function canReadOpenApiSpecRaw(visibility: OpenApiSpecVisibility, membership: OrganizationMembership | undefined): boolean {
  return visibility === 'public' || canReadOpenApiSpecs(membership);
}

/** The `permissions` of a specification as the API shows them to this member. */
export function openApiSpecPermissions(membership: OrganizationMembership | undefined): { view: boolean; edit: boolean } {
  return { view: canReadOpenApiSpecs(membership), edit: canManageOpenApiSpecs(membership) };
}
