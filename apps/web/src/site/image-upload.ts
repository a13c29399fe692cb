import { unwrap } from '@quire/client';
import { api } from '../api/client.js';
import { formatBytes } from '../editor/uploads.js';
import { sitePath, type SiteRef } from './site-api.js';

/*
 * Logos and icons uploaded from the customization screen (uploadSiteCustomizationImage): stored by Quire,
 * served by the reader under the site's address, and put into the form as that address. The API's limits are
 * checked here first, so a file it would refuse is refused before it is sent, saying why.
 */

/** The API's limits (MAX_SITE_IMAGE_BYTES and the accepted types of the server's site image service). */
export const MAX_SITE_IMAGE_BYTES = 1024 * 1024;
export const SITE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** Why `file` cannot be a site image, said to the person, or undefined when it can be sent. */
export function imageRefusal(file: File): string | undefined {
  if (file.type === 'image/svg+xml') return `“${file.name}” is an SVG, which sites do not take (it can hold scripts). Export it as PNG or WebP.`;
  if (!SITE_IMAGE_TYPES.includes(file.type)) return `“${file.name}” is not a PNG, JPEG, GIF or WebP image.`;
  if (file.size > MAX_SITE_IMAGE_BYTES) return `“${file.name}” is ${formatBytes(file.size)}; site images can be at most 1 MB. Make it smaller, then try again.`;
  if (file.size === 0) return `“${file.name}” is empty.`;
  return undefined;
}

function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error(`“${file.name}” could not be read`));
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.readAsDataURL(file);
  });
}

/** Uploads `file` for the site; answers the address to put into the logo or icon field. */
export async function uploadSiteImage(siteRef: SiteRef, file: File): Promise<string> {
  const base64 = await base64Of(file);
  const name = file.name.replace(/[/\\\u0000-\u001f\u007f]/g, '-') || 'image';
  const image = await unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/customization/images', { ...sitePath(siteRef), body: { name, contentType: file.type, base64 } }));
  return image.url;
}
