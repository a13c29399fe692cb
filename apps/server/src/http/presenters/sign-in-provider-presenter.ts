import type { components } from '@quire/api-types';
import type { SignInProviders } from '../../services/sign-in-provider-service.js';
import { appUrl, type PresentContext } from './context.js';
import { presentSsoProviderLogin } from './saml-presenter.js';

export type ApiSignInProviders = components['schemas']['SignInProviders'];

export function presentSignInProviders(context: PresentContext, providers: SignInProviders): ApiSignInProviders {
  return {
    object: 'sign-in-providers',
    password: providers.password,
    // The browser route of http/oidc-routes.ts.
    oidc: providers.oidc ? { name: providers.oidc.name, startURL: appUrl(context, '/auth/oidc/start') } : null,
    saml: providers.saml.map((provider) => presentSsoProviderLogin(context, provider)),
  };
}
