import { parseRison, RisonError, type RisonValue } from '../content/rison.js';
import { BadRequestError } from '../errors.js';
import { canViewContent } from '../policies/visibility-policy.js';
import type { SiteSpaceRecord } from '../stores/site-space-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { loadStructure, memberSiteView, type SiteStructure } from './site-structure.js';

/*
 * A preview of a docs site (getSitePublishingPreviewById). The reader of a self-hosted Quire serves published
 * sites and opens any of them to members of its organization whatever its visibility, so the preview is the
 * site space's own address on the site, with the claims asked for as the visitor's unsigned claims
 * (`visitor.<name>=<value>`, which the address lookup evaluates conditions on).
 */

/** A preview: the structure its address is presented from, the site space shown and the claims. */
export interface SitePreview {
  structure: SiteStructure;
  record: SiteSpaceRecord;
  claims: Array<[string, string]>;
}

/** The claims as `visitor.` parameters: nested objects give dotted names; lists and nulls have no such form. */
function claimParameters(text: string | undefined): Array<[string, string]> {
  if (text === undefined) return [];
  let parsed: RisonValue;
  try {
    parsed = parseRison(text);
  } catch (error) {
    if (error instanceof RisonError) throw new BadRequestError(`query.claims is not a Rison object: ${error.message}`);
    throw error;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BadRequestError('query.claims must be a Rison object, such as (beta:!t)');
  const out: Array<[string, string]> = [];
  const walk = (prefix: string, value: RisonValue): void => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [name, inner] of Object.entries(value)) walk(prefix ? `${prefix}.${name}` : name, inner);
    } else if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') {
      out.push([`visitor.${prefix}`, String(value)]);
    } else {
      throw new BadRequestError(`query.claims: "${prefix}" must be a boolean, a number or a string`);
    }
  };
  walk('', parsed);
  return out;
}

export async function getSitePublishingPreviewById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  query: { siteSpace?: string; claims?: string },
): Promise<SitePreview> {
  const claims = claimParameters(query.claims);
  const view = await memberSiteView(context, caller, organizationId, siteId, undefined);
  if (view.site.published !== 1) throw new BadRequestError('The site is not published: the reader serves published sites only; publish it to preview it');
  const structure = await loadStructure(context, view, organizationId);
  let record: SiteSpaceRecord | undefined;
  if (query.siteSpace !== undefined) {
    // One the caller cannot see answers as one the site does not have.
    record = structure.siteSpaces.find((row) => row.siteSpace.id === query.siteSpace && canViewContent(row.role));
    if (!record) throw new BadRequestError(`query.siteSpace: the site has no site space "${query.siteSpace}"`);
  } else {
    const section = structure.sections.find((row) => row.is_default === 1);
    record = structure.siteSpaces.find((row) => row.siteSpace.is_default === 1 && row.siteSpace.section_id === (section?.id ?? null) && canViewContent(row.role));
    if (!record) throw new BadRequestError('The site has no default site space to preview');
  }
  return { structure, record, claims };
}
