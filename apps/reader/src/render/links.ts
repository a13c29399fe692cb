/*
 * What a link or image address in page Markdown points at, as the API's content model spells it
 * (apps/server/src/content/markdown/links.ts states the same rules; the reader knows only the contract, so it
 * reads the addresses itself): `/pages/<id>` and `/files/<id>` are stable references, `.gitbook/assets/...`
 * and other paths with a file extension are files of the space, other scheme-less paths are page paths
 * (GitBook's `.md` and `README.md` names reduced), resolved from the linking page as a browser would.
 */
export type LinkTarget =
  | { kind: 'url' }
  | { kind: 'anchor'; anchor: string }
  | { kind: 'page'; page: string; anchor?: string }
  | { kind: 'page-path'; path: string; anchor?: string }
  | { kind: 'file'; file: string }
  | { kind: 'asset'; path: string };

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function resolvePath(path: string, pagePath: string): string {
  const base = path.startsWith('/') ? [] : pagePath.split('/').filter(Boolean).slice(0, -1);
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') base.pop();
    else base.push(safeDecode(segment));
  }
  return base.join('/');
}

export function classifyUrl(url: string, pagePath = ''): LinkTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith('#')) return { kind: 'anchor', anchor: safeDecode(trimmed.slice(1)) };
  if (SCHEME.test(trimmed) || trimmed.startsWith('//')) return { kind: 'url' };
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
  const path = resolved.replace(/\.(md|markdown)$/i, '').replace(/(^|\/)readme$/i, '').replace(/\/+$/, '');
  return anchor ? { kind: 'page-path', path, anchor } : { kind: 'page-path', path };
}
