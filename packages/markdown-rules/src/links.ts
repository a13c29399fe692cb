/*
 * Where a link or image address in page Markdown points, as the API's content model spells it. The server
 * (its content model, link index and Git sync) and the reader (site addresses of links) must read an address
 * the same way, or a link the API reports as working would be broken on the published site.
 */

/** Where a link or image points, as far as the address alone tells. */
export type LinkTarget =
  | { kind: 'url'; url: string }
  | { kind: 'anchor'; anchor: string }
  | { kind: 'page'; page: string; anchor?: string }
  /** A path of a page of the space (slugs joined by `/`), resolved against the linking page's path. */
  | { kind: 'page-path'; path: string; anchor?: string }
  | { kind: 'file'; file: string }
  /** A file by its repository path, e.g. `.gitbook/assets/diagram.png` (Git-synced content). */
  | { kind: 'asset'; path: string };

/** A URL scheme (`https:`, `mailto:`...): an address with one leaves the space. */
export const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * What a link URL points at, judged from the URL alone. `/pages/<id>` and `/files/<id>` are Quire's stable
 * references; `.gitbook/assets/...` is where Git-synced spaces keep files, and other paths with a file
 * extension are files too; other scheme-less URLs are paths of pages (with GitBook's `.md` and `README.md`
 * file names reduced to page paths), resolved as a browser would from `/<pagePath>`.
 */
export function classifyLink(url: string, pagePath = ''): LinkTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith('#')) return { kind: 'anchor', anchor: safeDecode(trimmed.slice(1)) };
  if (URL_SCHEME.test(trimmed) || trimmed.startsWith('//')) return { kind: 'url', url };

  const hashAt = trimmed.indexOf('#');
  const beforeHash = hashAt < 0 ? trimmed : trimmed.slice(0, hashAt);
  const anchor = hashAt < 0 ? undefined : safeDecode(trimmed.slice(hashAt + 1)) || undefined;
  const pathPart = beforeHash.split('?')[0]!;

  const stable = /^\/(pages|files)\/([^/]+)\/?$/.exec(pathPart);
  if (stable) {
    const id = safeDecode(stable[2]!);
    if (stable[1] === 'files') return { kind: 'file', file: id };
    return anchor ? { kind: 'page', page: id, anchor } : { kind: 'page', page: id };
  }
  const resolved = resolvePath(pathPart, pagePath);
  const assetAt = resolved.indexOf('.gitbook/assets/');
  if (assetAt >= 0) return { kind: 'asset', path: resolved.slice(assetAt) };
  const last = resolved.split('/').pop() ?? '';
  const extension = /\.([a-z0-9]+)$/i.exec(last)?.[1]?.toLowerCase();
  if (extension && extension !== 'md' && extension !== 'markdown') return { kind: 'asset', path: resolved };
  const path = resolved
    .replace(/\.(md|markdown)$/i, '')
    .replace(/(^|\/)readme$/i, '')
    .replace(/\/+$/, '');
  return anchor ? { kind: 'page-path', path, anchor } : { kind: 'page-path', path };
}

/** `decodeURIComponent`, or the value as written when it is not valid percent-encoding. */
export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * `path` resolved against the page at `/<pagePath>`, as a slash-separated path without leading slash, each
 * segment percent-decoded: `..` leaves a folder (never past the root), `.` and empty segments are dropped.
 */
export function resolvePath(path: string, pagePath: string): string {
  const base = path.startsWith('/') ? [] : pagePath.split('/').filter(Boolean).slice(0, -1);
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') base.pop();
    else base.push(safeDecode(segment));
  }
  return base.join('/');
}
