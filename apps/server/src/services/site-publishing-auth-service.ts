import { randomBytes } from 'node:crypto';
import { BadRequestError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { findVisitorAuth, insertVisitorAuth, updateVisitorAuth, type SiteVisitorAuthRow } from '../stores/site-visitor-auth-store.js';
import type { Caller } from './caller.js';
import { absoluteHttpUrl } from './http-url.js';
import type { ServiceContext } from './context.js';
import { openValue, sealValue, type SealingKey } from './sealed-values.js';
import { withManagedSite } from './site-access.js';

/*
 * Visitor authentication of `visitor-auth` sites (the public API's site-publishing-auth family): the
 * organization's own backend (`fallbackURL`) signs its visitors in and sends them to the site with a JWT signed
 * (HS256) with the site's key; the reader passes it to getPublishedContentByUrl, which verifies it and reads
 * its claims. The key is 256 random bits, kept sealed (as share-link keys are) and shown to the site's admins;
 * `key_id` changes with it, which closes visitor tokens issued under the old key. Every site has a key, made
 * by the first read or change of its settings, as the public API answers one for every site.
 */

const VISITOR_AUTH_SEALING: SealingKey = { secretName: 'site-visitor-auth', info: 'quire site visitor auth keys v1' };

export interface VisitorAuthRecord {
  /** Where visitors without a valid JWT are sent; undefined until an admin sets it. */
  backendUrl?: string;
  signingKey: string;
  keyId: string;
}

async function opened(context: ServiceContext, row: SiteVisitorAuthRow): Promise<VisitorAuthRecord> {
  // The associated data binds the sealed key to its site and to this key id: copied to another site it does not open.
  const signingKey = await openValue(context.db, VISITOR_AUTH_SEALING, row.sealed_key, `${row.site_id}:${row.key_id}`);
  return { ...(row.backend_url ? { backendUrl: row.backend_url } : {}), signingKey, keyId: row.key_id };
}

/** The site's visitor authentication, for verifying a visitor's JWT; undefined when no key was made yet. */
export async function siteVisitorAuth(context: ServiceContext, siteId: string): Promise<VisitorAuthRecord | undefined> {
  const row = await findVisitorAuth(context.db, siteId);
  return row ? opened(context, row) : undefined;
}

/** A new key, sealed for the site; made before any transaction, since sealing reads the server secret through the root handle. */
async function freshKey(context: ServiceContext, siteId: string): Promise<{ sealed: string; keyId: string }> {
  const keyId = newId();
  return { sealed: await sealValue(context.db, VISITOR_AUTH_SEALING, randomBytes(32).toString('base64url'), `${siteId}:${keyId}`), keyId };
}

/**
 * Runs a change of the site's settings under the site's lock (admins only): the row is made with `fresh` when
 * the site has none, then `patch` of the row as it is applies. A fresh key is sealed only when it may be used.
 */
async function changeSettings(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  options: { newKey: boolean; patch?: { backend_url?: string } },
): Promise<VisitorAuthRecord> {
  const needsKey = options.newKey || !(await findVisitorAuth(context.db, siteId));
  const fresh = needsKey ? await freshKey(context, siteId) : undefined;
  const row = await withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const existing = await findVisitorAuth(tx.db, siteId);
    // A row made by a concurrent first read between the check above and the lock: this request made no key.
    if (!existing && !fresh) throw new BadRequestError('The site\'s settings changed while this request ran; try again');
    const updatedAt = nowIso();
    if (!existing) {
      await insertVisitorAuth(tx.db, { site_id: siteId, backend_url: options.patch?.backend_url ?? '', sealed_key: fresh!.sealed, key_id: fresh!.keyId, updated_at: updatedAt });
    } else if (options.newKey || options.patch) {
      await updateVisitorAuth(tx.db, siteId, { ...options.patch, ...(options.newKey ? { sealed_key: fresh!.sealed, key_id: fresh!.keyId } : {}), updated_at: updatedAt });
    }
    return (await findVisitorAuth(tx.db, siteId))!;
  });
  return opened(context, row);
}

function checkedFallbackUrl(value: string): string {
  return absoluteHttpUrl(value, 'body.fallbackURL').href;
}

export async function getSitePublishingAuthById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<VisitorAuthRecord> {
  return changeSettings(context, caller, organizationId, siteId, { newKey: false });
}

export async function updateSitePublishingAuthById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  body: { backend: 'custom' | 'integration'; fallbackURL?: string | null },
): Promise<VisitorAuthRecord> {
  if (body.backend !== 'custom') throw new BadRequestError('body.backend: a self-hosted Quire installs no integrations on sites, so only "custom" can sign visitors in');
  const fallback = body.fallbackURL === undefined ? undefined : body.fallbackURL === null ? '' : checkedFallbackUrl(body.fallbackURL);
  // The column predates the optional address: an empty text is none.
  return changeSettings(context, caller, organizationId, siteId, { newKey: false, ...(fallback !== undefined ? { patch: { backend_url: fallback } } : {}) });
}

export async function regenerateSitePublishingAuthById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<VisitorAuthRecord> {
  return changeSettings(context, caller, organizationId, siteId, { newKey: true });
}
