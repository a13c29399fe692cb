/** Where the reader's static assets are served, on every host (hostname sites included). */
export const ASSET_PREFIX = '/_reader/';

/** Whether a request is the reader's on any host: an address under /sites/ or one of the reader's assets. */
export function isReaderPath(pathname: string): boolean {
  return pathname.startsWith('/sites/') || pathname.startsWith(ASSET_PREFIX);
}
