import { BadRequestError } from '../errors.js';
import { listActiveSamlProvidersForEmailDomain, type SamlProviderRow } from '../stores/saml-store.js';
import { normalizeEmail } from '../stores/user-store.js';
import type { ServiceContext } from './context.js';

/** A sign-in page shows a handful of providers; an answer never grows past this. */
export const MAX_SAML_PROVIDERS_FOR_DOMAIN = 100;

const DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,63}$/;

export interface SignInProviders {
  /** Password sign-in is always offered: every account can be given a password. */
  password: true;
  oidc: { name: string } | undefined;
  saml: SamlProviderRow[];
}

/**
 * The ways to sign in, for a page shown before anyone is signed in. Nothing in it depends on whether an
 * address has an account: the SAML providers come from the organizations that declare the address's domain.
 */
export async function listSignInProviders(context: ServiceContext, email: string | undefined): Promise<SignInProviders> {
  let saml: SamlProviderRow[] = [];
  if (email !== undefined) {
    const normalized = normalizeEmail(email);
    const domain = normalized.slice(normalized.lastIndexOf('@') + 1);
    // The contract's pattern holds this already; the store relies on it to keep LIKE wildcards out.
    if (!DOMAIN.test(domain)) throw new BadRequestError('email must be an e-mail address');
    saml = await listActiveSamlProvidersForEmailDomain(context.db, domain, MAX_SAML_PROVIDERS_FOR_DOMAIN);
  }
  return { password: true, oidc: context.oidc ? { name: context.oidc.name } : undefined, saml };
}
