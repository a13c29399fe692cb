import { listAnswer } from '../../pagination.js';
import {
  addSectionGroupToSite,
  addSectionToGroup,
  addSectionToSite,
  deleteSiteSectionById,
  deleteSiteSectionGroupById,
  listSiteSectionGroups,
  listSiteSections,
  moveSiteSection,
  moveSiteSectionGroup,
  removeSectionFromGroup,
  updateSiteSectionById,
  updateSiteSectionGroupById,
  type StructureItemView,
} from '../../services/site-section-service.js';
import type { PresentContext } from '../presenters/context.js';
import { presentSiteSection, presentSiteSectionGroup } from '../presenters/site-section-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

function sectionBody(present: PresentContext, view: StructureItemView) {
  return presentSiteSection(present, view.structure, view.structure.sections.find((section) => section.id === view.id)!);
}

function groupBody(present: PresentContext, view: StructureItemView) {
  return presentSiteSectionGroup(present, view.structure, view.structure.groups.find((group) => group.id === view.id)!);
}

/** The sections and section groups of docs sites. */
export function siteSectionHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSiteSections: async ({ caller, params, query }) => {
      const page = await listSiteSections(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: listAnswer(page, (section) => presentSiteSection(present, page.structure, section)) };
    },
    addSectionToSite: async ({ caller, params, body }) => ({ status: 201, body: sectionBody(present, await addSectionToSite(services, caller, params.organizationId, params.siteId, body)) }),
    updateSiteSectionById: async ({ caller, params, body }) => ({
      status: 200,
      body: sectionBody(present, await updateSiteSectionById(services, caller, params.organizationId, params.siteId, params.siteSectionId, body)),
    }),
    moveSiteSection: async ({ caller, params, body }) => ({
      status: 200,
      body: sectionBody(present, await moveSiteSection(services, caller, params.organizationId, params.siteId, params.siteSectionId, body)),
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
    moveSiteSectionGroup: async ({ caller, params, body }) => ({
      status: 200,
      body: groupBody(present, await moveSiteSectionGroup(services, caller, params.organizationId, params.siteId, params.siteSectionGroupId, body)),
    }),
    addSectionToGroup: async ({ caller, params, body }) => ({
      status: 201,
      body: groupBody(present, await addSectionToGroup(services, caller, params.organizationId, params.siteId, params.siteSectionGroupId, body)),
    }),
    removeSectionFromGroup: async ({ caller, params }) => {
      await removeSectionFromGroup(services, caller, params.organizationId, params.siteId, params.siteSectionGroupId, params.siteSectionId);
      return { status: 204 };
    },
  };
}
