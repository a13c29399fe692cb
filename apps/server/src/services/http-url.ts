import { BadRequestError } from '../errors.js';

/**
 * An absolute http(s) URL a request gives (an address to resolve, a page to embed, a backend to send visitors
 * to); anything else is the caller's mistake, 400 naming the field.
 */
export function absoluteHttpUrl(value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BadRequestError(`${field} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadRequestError(`${field} must be an absolute http(s) URL`);
  return url;
}
