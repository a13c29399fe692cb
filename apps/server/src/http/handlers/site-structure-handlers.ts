import { getSiteStructure, sortSiteStructure } from '../../services/site-structure-service.js';
import { presentSiteSection, presentSiteSectionGroup } from '../presenters/site-section-presenter.js';
import { presentSiteSpace } from '../presenters/site-space-presenter.js';
import { presentSiteStructure } from '../presenters/site-structure-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The structure of docs sites as one tree, and moves of any item in it. */
export function siteStructureHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getSiteStructure: async ({ caller, params, query }) => ({
      status: 200,
      body: presentSiteStructure(present, await getSiteStructure(services, caller, params.organizationId, params.siteId, query)),
    }),
    sortSiteStructure: async ({ caller, params, body }) => {
      const moved = await sortSiteStructure(services, caller, params.organizationId, params.siteId, body);
      if (moved.type === 'site-space') return { status: 200, body: presentSiteSpace(present, moved.view.site, moved.view.sections, moved.view.record) };
      const { structure, id } = moved.view;
      return {
        status: 200,
        body: moved.type === 'site-section'
          ? presentSiteSection(present, structure, structure.sections.find((section) => section.id === id)!)
          : presentSiteSectionGroup(present, structure, structure.groups.find((group) => group.id === id)!),
      };
    },
  };
}
