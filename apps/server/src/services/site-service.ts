import type { components } from '@quire/api-types';
import { isUniqueViolation } from '../db/dialect.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import type { KeysetPage } from '../stores/keyset.js';
import { setDefaultSection, siteSections } from '../stores/site-section-store.js';
import { findSiteSpace, setDefaultSiteSpace } from '../stores/site-space-store.js';
import {
  deleteSite,
  findSite,
  findSiteIdByAddressSegment,
  findSiteIdByHostname,
  insertSite,
  listSites as listSiteRows,
  SITE_ORDER_KEY_LENGTH,
  updateSite,
  type SiteWithCount,
} from '../stores/site-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { publishableSpace, readableSite, siteManager, siteReader, withManagedSite } from './site-access.js';
import { checkPathSegment } from './site-input-checks.js';
import { appendSiteSpace } from './site-space-service.js';
import { requireSpace } from './space-access.js';
import { inTransaction } from './transaction.js';

type SiteType = components['schemas']['SiteType'];
type SiteVisibility = components['schemas']['SiteVisibility'];

/*
 * Docs sites: a site publishes spaces of its organization (site spaces), at its root or in sections, which
 * section groups gather. The operations of each family of the contract have their own service:
 * site-space-service.ts, site-section-service.ts (sections and section groups), site-share-link-service.ts,
 * site-published-service.ts (the published structure), site-adaptive-schema-service.ts,
 * site-customization-service.ts and site-publishing-auth-service.ts; site-access.ts says who reaches a site.
 * This one holds the sites themselves and their publication.
 */

/** Whether the caller sees the space (deleted or not), by the rule of requireSpace; an unknown id is not seen. */
async function seesSpace(context: ServiceContext, caller: Caller, spaceId: string): Promise<boolean> {
  try {
    await requireSpace(context, caller, spaceId, { includeDeleted: true });
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

export interface SiteQuery {
  page?: string;
  limit?: number;
  space?: string;
  title?: string;
  published?: boolean;
  type?: SiteType[];
}

export async function listSites(context: ServiceContext, caller: Caller, organizationId: string, query: SiteQuery): Promise<KeysetPage<SiteWithCount>> {
  const { after, limit } = pageRequest(query, SITE_ORDER_KEY_LENGTH);
  await siteReader(context, caller, organizationId);
  // A space the caller cannot see answers as an unknown id does (no site), never naming the sites that publish it.
  if (query.space !== undefined && !(await seesSpace(context, caller, query.space))) return { rows: [], count: 0 };
  return listSiteRows(context.db, organizationId, {
    ...(query.space !== undefined ? { space: query.space } : {}),
    ...(query.title !== undefined ? { title: query.title } : {}),
    ...(query.published !== undefined ? { published: query.published } : {}),
    ...(query.type !== undefined ? { types: query.type } : {}),
  }, after, limit);
}

export async function createSite(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  body: { type?: SiteType; title?: string; visibility?: SiteVisibility; spaces?: string[] } = {},
): Promise<SiteWithCount> {
  return inTransaction(context, async (tx) => {
    await siteManager(tx, caller, organizationId, 'Only organization admins can create docs sites');
    const spaces = [];
    for (const [index, spaceId] of (body.spaces ?? []).entries()) spaces.push(await publishableSpace(tx, caller, organizationId, spaceId, `body.spaces[${index}]`));
    const now = nowIso();
    const id = newId();
    await insertSite(tx.db, {
      id, organization_id: organizationId, type: body.type ?? 'basic', title: body.title ?? 'Untitled site', visibility: body.visibility ?? 'public',
      published: 0, basename: null, hostname: null, proxy: null, adaptive_content: 0, agents_context: 'included', customizations: '{}',
      adaptive_schema: null, adaptive_schema_updated_at: null, created_at: now, updated_at: now,
    });
    for (const space of spaces) await appendSiteSpace(tx, id, null, space);
    return (await findSite(tx.db, organizationId, id))!;
  });
}

export async function getSiteById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<SiteWithCount> {
  return (await readableSite(context, caller, organizationId, siteId)).site;
}

export async function deleteSiteById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    await deleteSite(tx.db, organizationId, siteId);
  }, { absent: () => undefined });
}

export interface SiteUpdate {
  title?: string;
  visibility?: SiteVisibility;
  basename?: string;
  adaptiveContent?: { enabled: boolean };
  agentsContext?: 'excluded' | 'included';
  defaultSiteSpace?: string;
  defaultSiteSection?: string;
  proxy?: string | null;
  hostname?: string | null;
}

export async function updateSiteById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: SiteUpdate): Promise<SiteWithCount> {
  // Basenames are one path segment of the site's address.
  checkPathSegment(body.basename, 'body.basename');
  try {
    return await withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
      if (body.basename !== undefined) {
        // `/sites/{basename, else id}` is one namespace for the installation: a basename names one site.
        const holder = await findSiteIdByAddressSegment(tx.db, body.basename);
        if (holder !== undefined && holder !== siteId) throw new ConflictError(`The basename "${body.basename}" is already the address of another site`);
      }
      if (body.hostname) {
        const holder = await findSiteIdByHostname(tx.db, body.hostname);
        if (holder !== undefined && holder !== siteId) throw new ConflictError(`The hostname "${body.hostname}" is already used by another site`);
      }
      if (body.defaultSiteSpace !== undefined) {
        const siteSpace = await findSiteSpace(tx.db, siteId, body.defaultSiteSpace);
        if (!siteSpace) throw new BadRequestError(`body.defaultSiteSpace: the site has no site space "${body.defaultSiteSpace}"`);
        await setDefaultSiteSpace(tx.db, siteId, siteSpace.section_id, siteSpace.id);
      }
      if (body.defaultSiteSection !== undefined) {
        const section = await siteSections.find(tx.db, siteId, body.defaultSiteSection);
        if (!section) throw new BadRequestError(`body.defaultSiteSection: the site has no section "${body.defaultSiteSection}"`);
        await setDefaultSection(tx.db, siteId, section.id);
      }
      await updateSite(tx.db, siteId, {
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.visibility !== undefined ? { visibility: body.visibility } : {}),
        ...(body.basename !== undefined ? { basename: body.basename } : {}),
        ...(body.adaptiveContent !== undefined ? { adaptive_content: body.adaptiveContent.enabled ? 1 : 0 } : {}),
        ...(body.agentsContext !== undefined ? { agents_context: body.agentsContext } : {}),
        ...(body.proxy !== undefined ? { proxy: body.proxy } : {}),
        ...(body.hostname !== undefined ? { hostname: body.hostname } : {}),
        updated_at: nowIso(),
      });
      return (await findSite(tx.db, organizationId, site.id))!;
    });
  } catch (error) {
    // Two sites asking for the same hostname or basename at once: the unique indexes decide.
    if (isUniqueViolation(error)) {
      const taken = [body.hostname ? `hostname "${body.hostname}"` : undefined, body.basename !== undefined ? `basename "${body.basename}"` : undefined].filter(Boolean).join(' or ');
      throw new ConflictError(`The ${taken} is already the address of another site`);
    }
    throw error;
  }
}

async function setPublished(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, published: boolean): Promise<SiteWithCount> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    if ((site.published === 1) === published) return site;
    await updateSite(tx.db, siteId, { published: published ? 1 : 0, updated_at: nowIso() });
    return (await findSite(tx.db, organizationId, siteId))!;
  });
}

export async function publishSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<SiteWithCount> {
  return setPublished(context, caller, organizationId, siteId, true);
}

export async function unpublishSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<SiteWithCount> {
  return setPublished(context, caller, organizationId, siteId, false);
}
