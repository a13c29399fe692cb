import type { components } from '@quire/api-types';
import type { SiteStructure } from '../../services/site-structure.js';
import type { PresentContext } from './context.js';
import { childrenOf } from './site-section-presenter.js';
import { presentSiteSpace } from './site-space-presenter.js';

export type ApiSiteStructure = components['schemas']['SiteStructure'];

/** A site's structure as one tree: its sections and groups when it has sections, else its root's site spaces. */
export function presentSiteStructure(context: PresentContext, structure: SiteStructure): ApiSiteStructure {
  return structure.sections.length > 0
    ? { type: 'sections', structure: childrenOf(context, structure, null, new Set()) }
    : { type: 'siteSpaces', structure: structure.siteSpaces.map((record) => presentSiteSpace(context, structure.site, structure.sections, record, structure.shareKey)) };
}
