import { getAuthenticatedUser, getOrganizationById, getOrganizationsForEmailDomain, listOrganizationsForAuthenticatedUser, updateOrganizationById } from '../../services/organization-service.js';
import { searchOrganizationContent } from '../../services/search-service.js';
import { listAnswer } from '../../pagination.js';
import { presentOrganization } from '../presenters/organization-presenter.js';
import { presentOrganizationSearchResults } from '../presenters/search-presenter.js';
import { presentUser } from '../presenters/user-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The caller and their organizations. */
export function organizationHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    // Their own email is always the caller's to see.
    getAuthenticatedUser: async ({ caller }) => ({ status: 200, body: presentUser(present, getAuthenticatedUser(caller), { withEmail: true }) }),

    listOrganizationsForAuthenticatedUser: async ({ caller, query }) => {
      const page = await listOrganizationsForAuthenticatedUser(services, caller, query);
      return { status: 200, body: listAnswer(page, (row) => presentOrganization(present, row)) };
    },

    getOrganizationById: async ({ caller, params }) => {
      const found = await getOrganizationById(services, caller, params.organizationId);
      return { status: 200, body: presentOrganization(present, found) };
    },

    getOrganizationsForEmailDomain: async ({ caller, params }) => {
      const found = await getOrganizationsForEmailDomain(services, caller, params.emailDomain);
      return { status: 200, body: { organizations: found.map((row) => presentOrganization(present, row)) } };
    },

    searchOrganizationContent: async ({ caller, params, query }) => ({
      status: 200,
      body: presentOrganizationSearchResults(present, await searchOrganizationContent(services, caller, params.organizationId, query)),
    }),

    updateOrganizationById: async ({ caller, params, body }) => {
      const found = await updateOrganizationById(services, caller, params.organizationId, body);
      return { status: 200, body: presentOrganization(present, found) };
    },
  };
}
