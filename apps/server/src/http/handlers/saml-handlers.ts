import { listAnswer } from '../../pagination.js';
import { exchangeCliAuthCode } from '../../services/cli-auth-service.js';
import {
  createOrganizationSAMLProvider,
  deleteOrganizationSAMLProvider,
  getOrganizationSAMLProviderById,
  listSAMLProvidersInOrganizationById,
  listSSOProviderLoginsInOrganization,
  updateOrganizationSAMLProvider,
} from '../../services/saml-service.js';
import { presentSamlProvider, presentSsoProviderLogin } from '../presenters/saml-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** SAML providers of an organization, its sign-in entry points, and the command line's token after a sign-in. */
export function samlHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSAMLProvidersInOrganizationById: async ({ caller, params, query }) => {
      const page = await listSAMLProvidersInOrganizationById(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (view) => presentSamlProvider(present, view)) };
    },

    createOrganizationSAMLProvider: async ({ caller, params, body }) => {
      const view = await createOrganizationSAMLProvider(services, caller, params.organizationId, body);
      return { status: 201, body: presentSamlProvider(present, view) };
    },

    getOrganizationSAMLProviderById: async ({ caller, params }) => {
      const view = await getOrganizationSAMLProviderById(services, caller, params.organizationId, params.samlProviderId);
      return { status: 200, body: presentSamlProvider(present, view) };
    },

    updateOrganizationSAMLProvider: async ({ caller, params, body }) => {
      const view = await updateOrganizationSAMLProvider(services, caller, params.organizationId, params.samlProviderId, body);
      return { status: 200, body: presentSamlProvider(present, view) };
    },

    deleteOrganizationSAMLProvider: async ({ caller, params }) => {
      await deleteOrganizationSAMLProvider(services, caller, params.organizationId, params.samlProviderId);
      return { status: 204 };
    },

    listSSOProviderLoginsInOrganization: async ({ caller, params }) => {
      const providers = await listSSOProviderLoginsInOrganization(services, caller, params.organizationId);
      return { status: 200, body: { items: providers.map((provider) => presentSsoProviderLogin(present, provider)) } };
    },

    exchangeCliAuthCode: async ({ body }) => {
      const issued = await exchangeCliAuthCode(services, body);
      return { status: 200, body: { token: issued.token, organization: issued.organizationId, user: issued.userId, expiresAt: issued.expiresAt } };
    },
  };
}
