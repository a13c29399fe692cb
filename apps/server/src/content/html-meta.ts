/*
 * What a link card shows of a web page, read from the head of its HTML: title, site name and icon. Read with
 * regular expressions over at most the first 256 KiB, since only the head matters and a full HTML parser
 * would cost more than the fetch for a page of megabytes. Nothing of the page's markup is passed on.
 */

const HEAD_BYTES = 256 * 1024;
const MAX_TEXT = 300;

export interface PageMeta {
  title?: string;
  siteName?: string;
  /** Absolute http(s) address, resolved against the page's own. */
  icon?: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** One line of text, control characters dropped, bounded. */
function clean(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  const line = decodeEntities(text).replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return line === '' ? undefined : line.slice(0, MAX_TEXT);
}

function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of tag.matchAll(/([a-z:-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s"'>]+))/gi)) {
    found.set(match[1]!.toLowerCase(), match[3] ?? match[4] ?? match[5] ?? '');
  }
  return found;
}

function absoluteHttp(href: string, base: string): string | undefined {
  try {
    const url = new URL(decodeEntities(href), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function pageMeta(html: string, pageUrl: string): PageMeta {
  const head = html.slice(0, HEAD_BYTES);
  const meta = new Map<string, string>();
  let icon: string | undefined;
  for (const match of head.matchAll(/<(meta|link)\b[^>]*>/gi)) {
    const attrs = attributes(match[0]);
    if (match[1]!.toLowerCase() === 'meta') {
      const name = (attrs.get('property') ?? attrs.get('name'))?.toLowerCase();
      const content = attrs.get('content');
      if (name && content !== undefined && !meta.has(name)) meta.set(name, content);
    } else if (icon === undefined && /(^|\s)(shortcut\s+)?icon(\s|$)/i.test(attrs.get('rel') ?? '') && attrs.get('href')) {
      icon = absoluteHttp(attrs.get('href')!, pageUrl);
    }
  }
  const title = clean(meta.get('og:title')) ?? clean(/<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1]);
  const siteName = clean(meta.get('og:site_name'));
  return { ...(title ? { title } : {}), ...(siteName ? { siteName } : {}), ...(icon ? { icon } : {}) };
}
