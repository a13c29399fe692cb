import { imageDimensions, sniffBytes } from '../content/files.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { visitorSeesSite } from '../policies/visitor-policy.js';
import { findSiteImage, insertSiteImage, type SiteImageRow } from '../stores/site-image-store.js';
import { findSite, type SiteWithCount } from '../stores/site-store.js';
import type { UrlSigner } from '../storage/signed-urls.js';
import { isVisitor, type Caller, type Principal } from './caller.js';
import type { ServiceContext } from './context.js';
import { readableSite, siteManager, siteNotFound, withManagedSite } from './site-access.js';
import { requireUrlSigner } from './space-content-service.js';

/*
 * Images for a docs site's logo and icon (uploadSiteCustomizationImage, getSiteCustomizationImageById): the
 * bytes go to Quire's file store, a row ties them to the site, and the reader serves them under the site's
 * address to whoever may read the site.
 *
 * What is taken: PNG, JPEG, GIF and WebP, told by their bytes, at most 1 MiB and 4096 pixels a side (the
 * pixels bound what every reader's browser must decode: a small PNG can unpack to gigabytes). SVG is refused:
 * it is a document that may run scripts and fetch other addresses when opened by its address, and making it
 * safe needs an XML sanitizer Quire does not carry; a logo loses nothing as PNG or WebP.
 */

export const MAX_SITE_IMAGE_BYTES = 1024 * 1024;
export const MAX_SITE_IMAGE_PIXELS = 4096;
const ACCEPTED_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface SiteImageUpload {
  name?: string;
  contentType?: string;
  base64: string;
}

/** An image with what its answer needs: the site (its address) and the signer (its download URL). */
export interface SiteImageRecord {
  image: SiteImageRow;
  site: SiteWithCount;
  signer: UrlSigner;
}

interface CheckedImage {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

/** The upload's bytes, refused with a 400 saying why unless they are an accepted image within the limits. */
export function checkedImage(upload: SiteImageUpload): CheckedImage {
  const compact = upload.base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new BadRequestError('body.base64 is not base64');
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.byteLength === 0) throw new BadRequestError('body.base64 is empty');
  if (bytes.byteLength > MAX_SITE_IMAGE_BYTES) throw new BadRequestError(`The image is ${bytes.byteLength} bytes; site images can be at most 1 MiB (${MAX_SITE_IMAGE_BYTES} bytes)`);
  const sniffed = sniffBytes(bytes);
  if (sniffed === 'image/svg+xml') throw new BadRequestError('SVG images are refused (they can hold scripts); export the logo as PNG or WebP');
  if (!sniffed || !ACCEPTED_TYPES.has(sniffed)) throw new BadRequestError('The bytes are not a PNG, JPEG, GIF or WebP image');
  const declared = upload.contentType?.split(';')[0]?.trim().toLowerCase();
  if (declared && declared !== sniffed) throw new BadRequestError(`body.contentType says ${declared}, but the bytes are ${sniffed}`);
  const size = imageDimensions(bytes, sniffed);
  if (!size) throw new BadRequestError(`The ${sniffed} image is malformed: its size in pixels cannot be read`);
  if (size.width > MAX_SITE_IMAGE_PIXELS || size.height > MAX_SITE_IMAGE_PIXELS) {
    throw new BadRequestError(`The image is ${size.width}×${size.height} pixels; site images can be at most ${MAX_SITE_IMAGE_PIXELS} pixels on each side`);
  }
  return { bytes, contentType: sniffed, width: Math.round(size.width), height: Math.round(size.height) };
}

function fileName(upload: SiteImageUpload, contentType: string): string {
  // The name only labels downloads: path separators and control characters have no place in it.
  const given = upload.name?.replace(/[/\\\u0000-\u001f\u007f]/g, '-').trim();
  return given || `image.${contentType.slice('image/'.length).replace('jpeg', 'jpg')}`;
}

export async function uploadSiteCustomizationImage(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, upload: SiteImageUpload): Promise<SiteImageRecord> {
  const refusal = 'Only organization admins can change docs sites';
  // Who may upload is settled before the bytes are read or stored; the write below checks again under the lock.
  await siteManager(context, caller, organizationId, refusal);
  if (!(await findSite(context.db, organizationId, siteId))) throw siteNotFound();
  const image = checkedImage(upload);
  const storage = context.blobStorage;
  if (!storage) throw new Error('site images need the blob storage in the service context');
  // Stored outside the transaction (no I/O inside one); bytes nobody refers to cost space only.
  const stored = await storage.put(image.bytes);
  return withManagedSite(context, caller, organizationId, siteId, async (tx, site) => {
    const row: SiteImageRow = {
      id: newId(),
      site_id: site.id,
      blob_hash: stored.hash,
      name: fileName(upload, image.contentType),
      content_type: image.contentType,
      size: stored.size,
      width: image.width,
      height: image.height,
      created_by: caller.user.id,
      created_at: nowIso(),
    };
    await insertSiteImage(tx.db, row);
    return { image: row, site, signer: requireUrlSigner(context) };
  });
}

/** Members read a site's images; a visitor token, those of its own site; anything else is 404. */
export async function getSiteCustomizationImageById(context: ServiceContext, caller: Principal, organizationId: string, siteId: string, imageId: string): Promise<SiteImageRecord> {
  let site: SiteWithCount | undefined;
  if (isVisitor(caller)) {
    if (!visitorSeesSite(caller.grant, organizationId, siteId)) throw siteNotFound();
    site = await findSite(context.db, organizationId, siteId);
    if (!site) throw siteNotFound();
  } else {
    site = (await readableSite(context, caller, organizationId, siteId)).site;
  }
  const image = await findSiteImage(context.db, site.id, imageId);
  if (!image) throw new NotFoundError('No image of this site has this id');
  return { image, site, signer: requireUrlSigner(context) };
}
