import {
  deleteSiteSpaceCustomizationById,
  getSiteCustomizationById,
  getSiteSpaceCustomizationById,
  overrideSiteSpaceCustomizationById,
  previewSiteCustomizationById,
  updateSiteCustomizationById,
} from '../../services/site-customization-service.js';
import { getSiteCustomizationImageById, uploadSiteCustomizationImage } from '../../services/site-customization-image-service.js';
import { presentCustomization, presentSiteImage } from '../presenters/site-customization-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The customizations of docs sites and the overrides of their site spaces. */
export function siteCustomizationHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getSiteCustomizationById: async ({ caller, params }) => ({
      status: 200,
      body: presentCustomization(await getSiteCustomizationById(services, caller, params.organizationId, params.siteId)),
    }),
    updateSiteCustomizationById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentCustomization(await updateSiteCustomizationById(services, caller, params.organizationId, params.siteId, body)),
    }),
    previewSiteCustomizationById: async ({ caller, params, query, body }) => ({
      status: 200,
      body: presentCustomization(await previewSiteCustomizationById(services, caller, params.organizationId, params.siteId, body, query.siteSpace)),
    }),
    uploadSiteCustomizationImage: async ({ caller, params, body }) => ({
      status: 201,
      body: presentSiteImage(present, await uploadSiteCustomizationImage(services, caller, params.organizationId, params.siteId, body)),
    }),
    getSiteCustomizationImageById: async ({ principal, params }) => ({
      status: 200,
      body: presentSiteImage(present, await getSiteCustomizationImageById(services, principal, params.organizationId, params.siteId, params.siteImageId)),
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
