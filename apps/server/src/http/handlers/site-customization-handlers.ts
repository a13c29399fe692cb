import {
  deleteSiteSpaceCustomizationById,
  getSiteCustomizationById,
  getSiteSpaceCustomizationById,
  overrideSiteSpaceCustomizationById,
  updateSiteCustomizationById,
} from '../../services/site-customization-service.js';
import { presentCustomization } from '../presenters/site-customization-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The customizations of docs sites and the overrides of their site spaces. */
export function siteCustomizationHandlers({ services }: HandlerDeps): Handlers {
  return {
    getSiteCustomizationById: async ({ caller, params }) => ({
      status: 200,
      body: presentCustomization(await getSiteCustomizationById(services, caller, params.organizationId, params.siteId)),
    }),
    updateSiteCustomizationById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentCustomization(await updateSiteCustomizationById(services, caller, params.organizationId, params.siteId, body)),
    }),
    getSiteSpaceCustomizationById: async ({ caller, params }) => ({
      status: 200,
      body: presentCustomization(await getSiteSpaceCustomizationById(services, caller, params.organizationId, params.siteId, params.siteSpaceId)),
    }),
    overrideSiteSpaceCustomizationById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentCustomization(await overrideSiteSpaceCustomizationById(services, caller, params.organizationId, params.siteId, params.siteSpaceId, body)),
    }),
    deleteSiteSpaceCustomizationById: async ({ caller, params }) => {
      await deleteSiteSpaceCustomizationById(services, caller, params.organizationId, params.siteId, params.siteSpaceId);
      return { status: 204 };
    },
  };
}
