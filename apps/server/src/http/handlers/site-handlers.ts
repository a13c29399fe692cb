import { listAnswer } from '../../pagination.js';
import {
  addSectionGroupToSite,
  addSectionToGroup,
  addSectionToSite,
  addSpaceToSite,
  createSite,
  createSiteShareLink,
  deleteSiteById,
  deleteSiteSectionById,
  deleteSiteSectionGroupById,
  deleteSiteShareLinkById,
  deleteSiteSpaceById,
  getPublishedContentSite,
  getSiteAdaptiveSchema,
  getSiteById,
  listSiteAdaptiveTemplateConditions,
  updateSiteAdaptiveSchema,
  listSites,
  listSiteSectionGroups,
  listSiteSections,
  listSiteShareLinks,
  listSiteSpaces,
  moveSiteSpace,
  publishSite,
  removeSectionFromGroup,
  unpublishSite,
  updateSiteById,
  updateSiteSectionById,
  updateSiteSectionGroupById,
  updateSiteShareLinkById,
  updateSiteSpaceById,
  type GroupView,
  type SectionView,
  type SiteSpaceView,
} from '../../services/site-service.js';
import type { PresentContext } from '../presenters/context.js';
import {
  presentAdaptiveSchema,
  presentPublishedContentSite,
  presentShareLink,
  presentSite,
  presentSiteSection,
  presentSiteSectionGroup,
  presentSiteSpace,
} from '../presenters/site-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

function siteSpaceBody(present: PresentContext, view: SiteSpaceView) {
  return presentSiteSpace(present, view.site, view.sections, view.record);
}

function sectionBody(present: PresentContext, view: SectionView) {
  return presentSiteSection(present, view.structure, view.structure.sections.find((section) => section.id === view.id)!);
}

function groupBody(present: PresentContext, view: GroupView) {
  return presentSiteSectionGroup(present, view.structure, view.structure.groups.find((group) => group.id === view.id)!);
}

/** Docs sites, their site spaces, sections, section groups and share links, and their published content. */
export function siteHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSites: async ({ caller, params, query }) => {
      const page = await listSites(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (site) => presentSite(present, site)) };
    },
    createSite: async ({ caller, params, body }) => ({ status: 201, body: presentSite(present, await createSite(services, caller, params.organizationId, body ?? {})) }),
    getSiteById: async ({ caller, params }) => ({ status: 200, body: presentSite(present, await getSiteById(services, caller, params.organizationId, params.siteId)) }),
    updateSiteById: async ({ caller, params, body }) => ({ status: 200, body: presentSite(present, await updateSiteById(services, caller, params.organizationId, params.siteId, body)) }),
    deleteSiteById: async ({ caller, params }) => {
      await deleteSiteById(services, caller, params.organizationId, params.siteId);
      return { status: 204 };
    },
    publishSite: async ({ caller, params }) => ({ status: 200, body: presentSite(present, await publishSite(services, caller, params.organizationId, params.siteId)) }),
    unpublishSite: async ({ caller, params }) => ({ status: 200, body: presentSite(present, await unpublishSite(services, caller, params.organizationId, params.siteId)) }),

    listSiteSpaces: async ({ caller, params, query }) => {
      const page = await listSiteSpaces(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: listAnswer(page, (record) => presentSiteSpace(present, page.site, page.sections, record, page.shareKey)) };
    },
    addSpaceToSite: async ({ caller, params, body }) => ({ status: 201, body: siteSpaceBody(present, await addSpaceToSite(services, caller, params.organizationId, params.siteId, body)) }),
    updateSiteSpaceById: async ({ caller, params, body }) => ({
      status: 200,
      body: siteSpaceBody(present, await updateSiteSpaceById(services, caller, params.organizationId, params.siteId, params.siteSpaceId, body)),
    }),
    deleteSiteSpaceById: async ({ caller, params }) => {
      await deleteSiteSpaceById(services, caller, params.organizationId, params.siteId, params.siteSpaceId);
      return { status: 204 };
    },
    moveSiteSpace: async ({ caller, params, body }) => ({
      status: 200,
      body: siteSpaceBody(present, await moveSiteSpace(services, caller, params.organizationId, params.siteId, params.siteSpaceId, body)),
    }),

    listSiteSections: async ({ caller, params, query }) => {
      const page = await listSiteSections(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: listAnswer(page, (section) => presentSiteSection(present, page.structure, section)) };
    },
    addSectionToSite: async ({ caller, params, body }) => ({ status: 201, body: sectionBody(present, await addSectionToSite(services, caller, params.organizationId, params.siteId, body)) }),
    updateSiteSectionById: async ({ caller, params, body }) => ({
      status: 200,
      body: sectionBody(present, await updateSiteSectionById(services, caller, params.organizationId, params.siteId, params.siteSectionId, body)),
    }),
    deleteSiteSectionById: async ({ caller, params }) => {
      await deleteSiteSectionById(services, caller, params.organizationId, params.siteId, params.siteSectionId);
      return { status: 204 };
    },

    listSiteSectionGroups: async ({ caller, params, query }) => {
      const page = await listSiteSectionGroups(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: listAnswer(page, (group) => presentSiteSectionGroup(present, page.structure, group)) };
    },
    addSectionGroupToSite: async ({ caller, params, body }) => ({ status: 201, body: groupBody(present, await addSectionGroupToSite(services, caller, params.organizationId, params.siteId, body)) }),
    updateSiteSectionGroupById: async ({ caller, params, body }) => ({
      status: 200,
      body: groupBody(present, await updateSiteSectionGroupById(services, caller, params.organizationId, params.siteId, params.siteSectionGroupId, body)),
    }),
    deleteSiteSectionGroupById: async ({ caller, params }) => {
      await deleteSiteSectionGroupById(services, caller, params.organizationId, params.siteId, params.siteSectionGroupId);
      return { status: 204 };
    },
    addSectionToGroup: async ({ caller, params, body }) => ({
      status: 201,
      body: groupBody(present, await addSectionToGroup(services, caller, params.organizationId, params.siteId, params.siteSectionGroupId, body)),
    }),
    removeSectionFromGroup: async ({ caller, params }) => {
      await removeSectionFromGroup(services, caller, params.organizationId, params.siteId, params.siteSectionGroupId, params.siteSectionId);
      return { status: 204 };
    },

    listSiteShareLinks: async ({ caller, params, query }) => {
      const page = await listSiteShareLinks(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: listAnswer(page, (record) => presentShareLink(present, page.site, record)) };
    },
    createSiteShareLink: async ({ caller, params, body }) => {
      const created = await createSiteShareLink(services, caller, params.organizationId, params.siteId, body);
      return { status: 201, body: presentShareLink(present, created.site, created) };
    },
    updateSiteShareLinkById: async ({ caller, params, body }) => {
      const updated = await updateSiteShareLinkById(services, caller, params.organizationId, params.siteId, params.shareLinkId, body);
      return { status: 200, body: presentShareLink(present, updated.site, updated) };
    },
    deleteSiteShareLinkById: async ({ caller, params }) => {
      await deleteSiteShareLinkById(services, caller, params.organizationId, params.siteId, params.shareLinkId);
      return { status: 204 };
    },

    getSiteAdaptiveSchema: async ({ caller, params }) => ({
      status: 200,
      body: presentAdaptiveSchema(await getSiteAdaptiveSchema(services, caller, params.organizationId, params.siteId)),
    }),
    updateSiteAdaptiveSchema: async ({ caller, params, body }) => ({
      status: 200,
      body: presentAdaptiveSchema(await updateSiteAdaptiveSchema(services, caller, params.organizationId, params.siteId, body)),
    }),
    listSiteAdaptiveTemplateConditions: async ({ caller, params }) => ({
      status: 200,
      body: { items: await listSiteAdaptiveTemplateConditions(services, caller, params.organizationId, params.siteId) },
    }),

    getPublishedContentSite: async ({ principal, params, query }) => ({
      status: 200,
      body: presentPublishedContentSite(present, await getPublishedContentSite(services, principal, params.organizationId, params.siteId, query.shareKey)),
    }),
  };
}
