import type { SitePreview } from '../../services/site-preview-service.js';
import type { PresentContext } from './context.js';
import { siteSpaceAddress } from './site-presenter.js';

/** The preview's address: the site space's published address (the one rule of site-presenter) with the claims. */
export function presentSitePreview(context: PresentContext, preview: SitePreview): { url: string } {
  const { site, sections } = preview.structure;
  const { siteSpace } = preview.record;
  const section = siteSpace.section_id ? sections.find((row) => row.id === siteSpace.section_id) : undefined;
  const url = new URL(siteSpaceAddress(context, site, section, siteSpace));
  for (const [name, value] of preview.claims) url.searchParams.append(name, value);
  return { url: url.href };
}
