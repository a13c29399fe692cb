import type { components } from '@quire/api-types';
import { parseRole } from '../../policies/roles.js';
import { isSamlProviderActive } from '../../policies/saml-policy.js';
import type { SamlProviderView } from '../../services/saml-service.js';
import type { SamlProviderRow } from '../../stores/saml-store.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';
import { presentTeam } from './team-presenter.js';

export type ApiSamlProvider = components['schemas']['SAMLProvider'];
export type ApiSsoProviderLogin = components['schemas']['SSOProviderLogin'];

/**
 * The service-provider side of a provider: where the identity provider sends its answers, where a sign-in
 * starts, and the entity id Quire uses (the URL of its metadata). The sign-in routes are outside the API.
 */
export function samlServiceUrls(context: PresentContext, providerId: string): ApiSamlProvider['service'] {
  const base = appUrl(context, `/auth/saml/${encodeURIComponent(providerId)}`);
  return { acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: base };
}

export function presentSamlProvider(context: PresentContext, view: SamlProviderView): ApiSamlProvider {
  const { provider } = view;
  return {
    object: 'saml-provider',
    id: provider.id,
    label: provider.label,
    // Providers are created with an `ssoURL` now; one created by an earlier Quire without it answers '' until set.
    // `entityID` and `certificate` may be unset: empty strings, as the public shape (any string) allows.
    ssoURL: provider.sso_url ?? '',
    entityID: provider.entity_id ?? '',
    certificate: provider.certificate ?? '',
    ...(view.defaultTeam ? { defaultTeam: presentTeam(context, view.viewer, view.defaultTeam) } : {}),
    defaultRole: parseRole(provider.default_role),
    createdAt: provider.created_at,
    status: isSamlProviderActive(provider) ? 'active' : 'pending',
    service: samlServiceUrls(context, provider.id),
    urls: { location: apiUrl(context, `/orgs/${encodeURIComponent(provider.organization_id)}/saml/${encodeURIComponent(provider.id)}`) },
  };
}

export function presentSsoProviderLogin(context: PresentContext, provider: SamlProviderRow): ApiSsoProviderLogin {
  return { id: provider.id, label: provider.label, startURL: samlServiceUrls(context, provider.id).startURL };
}
