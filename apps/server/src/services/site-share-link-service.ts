import { createHash, randomBytes } from 'node:crypto';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { canSeeShareKeys } from '../policies/site-policy.js';
import type { KeysetPage } from '../stores/keyset.js';
import { siteSections, type SiteSectionRow } from '../stores/site-section-store.js';
import {
  deleteShareLink,
  findShareLink,
  findShareLinkByKeyHash,
  insertShareLink,
  listShareLinksPage,
  SHARE_LINK_ORDER_KEY_LENGTH,
  updateShareLink,
  type ShareLinkRow,
} from '../stores/site-share-link-store.js';
import { siteSpaceOfSpace, type SiteSpaceRow } from '../stores/site-space-store.js';
import { findSiteById, type SiteWithCount } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { openValue, sealValue, type SealingKey } from './sealed-values.js';
import { readableSite, withManagedSite } from './site-access.js';

/*
 * Share links of docs sites: each carries a random key that opens a published `share-link` site. The key is
 * looked up by its SHA-256 and kept sealed, to show it again to those who manage the site.
 */

const SHARE_KEY_SEALING: SealingKey = { secretName: 'site-share-links', info: 'quire site share links v1' };

function keyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A share link with its key opened (for those who manage the site). */
export interface ShareLinkRecord {
  link: ShareLinkRow;
  key: string;
}

async function withKey(context: ServiceContext, link: ShareLinkRow): Promise<ShareLinkRecord> {
  return { link, key: await openValue(context.db, SHARE_KEY_SEALING, link.sealed_key, link.id) };
}

/** The active share link of this site whose key this is; undefined for any other key. */
export async function activeShareLinkOf(context: ServiceContext, siteId: string, shareKey: string): Promise<ShareLinkRow | undefined> {
  const link = await findShareLinkByKeyHash(context.db, keyHash(shareKey));
  return link && link.site_id === siteId && link.active === 1 ? link : undefined;
}

/**
 * What a `shareKey` of a request opens: undefined when none was given; 'refused' when it is not the key of an
 * active share link of this site (inactive, deleted, another site's, or made up).
 */
export async function shareKeyOf(context: ServiceContext, siteId: string, shareKey: string | undefined): Promise<string | undefined | 'refused'> {
  if (shareKey === undefined) return undefined;
  return (await activeShareLinkOf(context, siteId, shareKey)) ? shareKey : 'refused';
}

/**
 * For `GET /spaces/{spaceId}?shareKey=`: the site space through which the key's site publishes the space,
 * when the key is that of an active link of a published `share-link` site; undefined otherwise.
 */
export async function sharedSiteSpaceOfSpace(context: ServiceContext, spaceId: string, shareKey: string): Promise<{ site: SiteWithCount; sections: SiteSectionRow[]; siteSpace: SiteSpaceRow; shareKey: string } | undefined> {
  const link = await findShareLinkByKeyHash(context.db, keyHash(shareKey));
  if (!link || link.active !== 1) return undefined;
  const site = await findSiteById(context.db, link.site_id);
  if (!site || site.published !== 1 || site.visibility !== 'share-link') return undefined;
  const siteSpace = await siteSpaceOfSpace(context.db, site.id, spaceId);
  if (!siteSpace) return undefined;
  return { site, sections: await siteSections.all(context.db, site.id), siteSpace, shareKey };
}

export async function listSiteShareLinks(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { page?: string; limit?: number }): Promise<KeysetPage<ShareLinkRecord> & { site: SiteWithCount }> {
  const { after, limit } = pageRequest(query, SHARE_LINK_ORDER_KEY_LENGTH);
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  if (!canSeeShareKeys(who.membership)) throw new ForbiddenError('Only organization admins can see the share links of a site');
  const page = await listShareLinksPage(context.db, siteId, after, limit);
  const rows: ShareLinkRecord[] = [];
  for (const link of page.rows) rows.push(await withKey(context, link));
  return { ...page, rows, site };
}

export async function createSiteShareLink(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: { name: string }): Promise<ShareLinkRecord & { site: SiteWithCount }> {
  // 256 bits from the system's CSPRNG; sealed outside the transaction (sealing reads the server secret from the root handle).
  const key = randomBytes(32).toString('base64url');
  const id = newId();
  const sealed = await sealValue(context.db, SHARE_KEY_SEALING, key, id);
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    await insertShareLink(tx.db, { id, site_id: siteId, name: body.name, active: 1, key_hash: keyHash(key), sealed_key: sealed, created_at: nowIso() });
    return { link: (await findShareLink(tx.db, siteId, id))!, key, site };
  });
}

export async function updateSiteShareLinkById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, shareLinkId: string, body: { active?: boolean; name?: string }): Promise<ShareLinkRecord & { site: SiteWithCount }> {
  const { link, site } = await withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    const found = await findShareLink(tx.db, siteId, shareLinkId);
    if (!found) throw new NotFoundError('The site has no share link with this id');
    await updateShareLink(tx.db, shareLinkId, { ...(body.active !== undefined ? { active: body.active ? 1 : 0 } : {}), ...(body.name !== undefined ? { name: body.name } : {}) });
    return { link: (await findShareLink(tx.db, siteId, shareLinkId))!, site };
  });
  return { ...(await withKey(context, link)), site };
}

export async function deleteSiteShareLinkById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, shareLinkId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    await deleteShareLink(tx.db, siteId, shareLinkId);
  }, { absent: () => undefined });
}
