import { randomBytes } from 'node:crypto';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { canManageSites } from '../policies/site-policy.js';
import { deleteVisitorAuth, findVisitorAuth, insertVisitorAuth, updateVisitorAuth, type SiteVisitorAuthRow } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { openValue, sealValue, type SealingKey } from './sealed-values.js';
import { readableSite, withManagedSite } from './site-service.js';

/*
 * Visitor authentication of `visitor-auth` sites: the organization's own backend signs its visitors in and
 * sends them to the site with a JWT signed (HS256) with the site's key; the reader passes it to
 * getPublishedContentByUrl, which verifies it and reads its claims. The key is 256 random bits, kept sealed
 * (as share-link keys are) and shown to the site's admins; `key_id` changes with it, which closes visitor
 * tokens issued under the old key.
 */

const VISITOR_AUTH_SEALING: SealingKey = { secretName: 'site-visitor-auth', info: 'quire site visitor auth keys v1' };

export interface VisitorAuthRecord {
  backendUrl: string;
  signingKey: string;
  keyId: string;
  updatedAt: string;
}

async function opened(context: ServiceContext, row: SiteVisitorAuthRow): Promise<VisitorAuthRecord> {
  // The associated data binds the sealed key to its site and to this key id: copied to another site it does not open.
  const signingKey = await openValue(context.db, VISITOR_AUTH_SEALING, row.sealed_key, `${row.site_id}:${row.key_id}`);
  return { backendUrl: row.backend_url, signingKey, keyId: row.key_id, updatedAt: row.updated_at };
}

/** The site's visitor authentication, for verifying a visitor's JWT; undefined when none is configured. */
export async function siteVisitorAuth(context: ServiceContext, siteId: string): Promise<VisitorAuthRecord | undefined> {
  const row = await findVisitorAuth(context.db, siteId);
  return row ? opened(context, row) : undefined;
}

function checkedBackendUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BadRequestError('body.backendUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadRequestError('body.backendUrl must be an absolute http(s) URL');
  return url.href;
}

export async function getSiteVisitorAuth(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<VisitorAuthRecord> {
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  if (!canManageSites(who.membership)) throw new ForbiddenError('Only organization admins can read the visitor authentication of a site');
  const row = await findVisitorAuth(context.db, site.id);
  if (!row) throw new NotFoundError('The site has no visitor authentication');
  return opened(context, row);
}

export async function updateSiteVisitorAuth(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  body: { backendUrl: string; rotateKey?: boolean },
): Promise<VisitorAuthRecord> {
  const backendUrl = checkedBackendUrl(body.backendUrl);
  // Made and sealed before the transaction: sealing reads the server secret through the root handle.
  const fresh = { key: randomBytes(32).toString('base64url'), keyId: newId() };
  const sealed = await sealValue(context.db, VISITOR_AUTH_SEALING, fresh.key, `${siteId}:${fresh.keyId}`);
  const row = await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const existing = await findVisitorAuth(tx.db, siteId);
    const updatedAt = nowIso();
    if (!existing) {
      await insertVisitorAuth(tx.db, { site_id: siteId, backend_url: backendUrl, sealed_key: sealed, key_id: fresh.keyId, updated_at: updatedAt });
    } else {
      await updateVisitorAuth(tx.db, siteId, {
        backend_url: backendUrl, updated_at: updatedAt,
        ...(body.rotateKey === true ? { sealed_key: sealed, key_id: fresh.keyId } : {}),
      });
    }
    return (await findVisitorAuth(tx.db, siteId))!;
  });
  return opened(context, row);
}

export async function deleteSiteVisitorAuth(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<void> {
  await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    await deleteVisitorAuth(tx.db, siteId);
  }, { absent: () => undefined });
}
