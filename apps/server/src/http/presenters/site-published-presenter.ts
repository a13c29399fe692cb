import type { components } from '@quire/api-types';
import { parseCustomization } from '../../content/site-customization.js';
import type { SiteStructure } from '../../services/site-structure.js';
import type { PresentContext } from './context.js';
import { presentCustomization, type ApiSiteCustomization } from './site-customization-presenter.js';
import { presentSite } from './site-presenter.js';
import { presentSiteStructure } from './site-structure-presenter.js';

export type ApiPublishedContentSite = components['schemas']['PublishedContentSite'];

export function presentPublishedContentSite(context: PresentContext, structure: SiteStructure): ApiPublishedContentSite {
  // Each site space answers its complete settings (the site's with its overrides), as the public API does.
  const site = parseCustomization(structure.site.customizations);
  const customizations: Record<string, ApiSiteCustomization> = {};
  for (const { siteSpace } of structure.siteSpaces) customizations[siteSpace.id] = presentCustomization({ site, siteSpace: parseCustomization(siteSpace.customizations) });
  return {
    object: 'published-content-site',
    site: presentSite(context, structure.site),
    structure: presentSiteStructure(context, structure),
    customizations: { site: presentCustomization({ site }), siteSpaces: customizations },
    // Integrations are published but never installed on a site in Quire (no installation operations), so no
    // integration holds the site:script:inject grant a script needs here: see apps/server/README.md.
    scripts: [],
  };
}
