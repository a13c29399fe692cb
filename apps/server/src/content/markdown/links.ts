import { classifyLink, URL_SCHEME, type LinkTarget } from '@quire/markdown-rules';
import type { Root } from 'mdast';
import { markdownLimitBreach } from './limits.js';
import { collectDefinitions, parseMarkdown, visit } from './syntax.js';

/*
 * Links and references in markdown: what a URL points at, the references a page holds (for links,
 * backlinks and files in use), and the one rewriter of link destinations that both content edits
 * (`ref:` labels and page paths made stable) and Git sync (repository paths in and out) use.
 */

/**
 * Where a link or image points, as far as the markdown alone tells: the targets of @quire/markdown-rules
 * (which the reader reads addresses with too), and the server's own `ref:` labels.
 */
export type ReferenceTarget =
  | LinkTarget
  /** `ref:<label>`: a page or file created earlier in the same change batch. */
  | { kind: 'ref'; label: string };

/**
 * What a link URL points at, judged from the URL alone (`classifyLink` of @quire/markdown-rules), with
 * `ref:<label>` read as a reference to content created in the same change batch: only a write knows those
 * labels (the reader, like any other address with a scheme, takes them for outside addresses).
 */
export function classifyUrl(url: string, pagePath = ''): ReferenceTarget {
  const trimmed = url.trim();
  if (/^ref:/i.test(trimmed)) return { kind: 'ref', label: trimmed.slice(4) };
  return classifyLink(url, pagePath);
}

export interface ContentReference {
  /** The URL as the markdown holds it. */
  url: string;
  target: ReferenceTarget;
  /** True for images (embedded), false for links. */
  image: boolean;
}

export interface ExtractedReferences {
  /** Links to pages, anchors, outside URLs, and `ref:` labels. */
  links: ContentReference[];
  /** Links and images pointing at files of the space (by id or by repository path). */
  files: ContentReference[];
  /** OpenAPI specifications of the organization that blocks of the page show, by the id or slug they name. */
  specs: Array<{ spec: string }>;
}

/**
 * GitBook's OpenAPI blocks, which CommonMark reads as paragraph text: `{% openapi-operation spec="petstore"
 * path="/pets" method="get" %}` (also `openapi-schemas` and `openapi-webhook`) show part of an organization's
 * specification, named by `spec`; the older `{% openapi src="..." %}` and `{% swagger src="..." %}` name the
 * spec's own address (a URL, or a file of the space).
 */
const OPENAPI_BLOCK = /\{%\s*openapi-(?:operation|schemas|webhook)\s([^%]*?)%\}/g;
const LEGACY_OPENAPI_BLOCK = /\{%\s*(?:openapi|swagger)\s([^%]*?)%\}/g;
const attribute = (tag: string, name: string): string | undefined => new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(tag)?.[1];

/**
 * The links and file references of a page's markdown, in reading order, one entry per occurrence. Markdown
 * past the content limits (stored before they existed) has none: it is not parsed (see markdownLimitBreach).
 */
export function extractReferences(markdown: string, options: { pagePath?: string } = {}): ExtractedReferences {
  if (markdownLimitBreach(markdown) !== undefined) return { links: [], files: [], specs: [] };
  const tree = parseMarkdown(markdown);
  const definitions = collectDefinitions(tree);
  const links: ContentReference[] = [];
  const files: ContentReference[] = [];
  const specs: Array<{ spec: string }> = [];
  const add = (url: string, image: boolean): void => {
    const target = classifyUrl(url, options.pagePath);
    const reference = { url, target, image };
    (target.kind === 'file' || target.kind === 'asset' ? files : links).push(reference);
  };
  visit(tree, (node) => {
    if (node.type === 'link') add(node.url, false);
    else if (node.type === 'image') add(node.url, true);
    else if (node.type === 'linkReference' || node.type === 'imageReference') {
      const definition = definitions.get(node.identifier);
      if (definition) add(definition.url, node.type === 'imageReference');
    } else if (node.type === 'paragraph' && node.position?.start.offset !== undefined && node.position.end.offset !== undefined) {
      // The block tags are read from the paragraph's source: the parser would split `path="/a_b_c"` into
      // emphasis. Code blocks and code spans are other nodes, so a tag shown as code is not a block.
      const start = node.position.start.offset;
      let source = markdown.slice(start, node.position.end.offset);
      if (!source.includes('{%')) return;
      // A tag in a code span is shown, not run: blanked out before the tags are looked for.
      visit(node, (inner) => {
        const at = inner.position;
        if (inner.type !== 'inlineCode' || at?.start.offset === undefined || at.end.offset === undefined) return;
        source = source.slice(0, at.start.offset - start) + ' '.repeat(at.end.offset - at.start.offset) + source.slice(at.end.offset - start);
      });
      for (const [, tag] of source.matchAll(OPENAPI_BLOCK)) {
        const spec = attribute(tag!, 'spec');
        if (spec !== undefined) specs.push({ spec });
      }
      for (const [, tag] of source.matchAll(LEGACY_OPENAPI_BLOCK)) {
        const src = attribute(tag!, 'src');
        if (src !== undefined) add(src, false);
      }
    }
  });
  return { links, files, specs };
}

// ----- rewriting destinations -----

export type LinkKind = 'link' | 'image' | 'definition';

/** Returns the new destination, or undefined to keep the link as it is. */
export type LinkRewriter = (url: string, kind: LinkKind) => string | undefined;

interface Span {
  start: number;
  end: number;
  replacement: string;
}

/** Index just past the `]` closing the label that opens at `open` (the index of `[`), or -1. */
function labelEnd(source: string, open: number, limit: number): number {
  let depth = 0;
  for (let i = open; i < limit; i += 1) {
    const char = source[i];
    if (char === '\\') {
      i += 1;
    } else if (char === '`') {
      let run = 1;
      while (source[i + run] === '`') run += 1;
      const fence = '`'.repeat(run);
      const close = source.indexOf(fence, i + run);
      if (close === -1 || close >= limit) i += run - 1;
      else i = close + run - 1;
    } else if (char === '[') {
      depth += 1;
    } else if (char === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** The span of a destination starting at or after `from` (skipping whitespace): `<...>` or a bare run. */
function destinationSpan(source: string, from: number, limit: number): { start: number; end: number } | undefined {
  let i = from;
  while (i < limit && /\s/.test(source[i] ?? '')) i += 1;
  if (i >= limit) return undefined;
  if (source[i] === '<') {
    const close = source.indexOf('>', i);
    return close === -1 || close >= limit ? undefined : { start: i, end: close + 1 };
  }
  const start = i;
  let depth = 0;
  for (; i < limit; i += 1) {
    const char = source[i] ?? '';
    if (char === '\\') {
      i += 1;
    } else if (/\s/.test(char)) {
      break;
    } else if (char === '(') {
      depth += 1;
    } else if (char === ')') {
      if (depth === 0) break;
      depth -= 1;
    }
  }
  return i > start ? { start, end: i } : undefined;
}

/** A destination as markdown writes it: in angle brackets when it holds spaces or parentheses. */
export function formatDestination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, encodeURIComponent)}>` : url;
}

const CAN_HOLD_DESTINATION = /[[<]/;

/** Where a destination of a link, image or link definition is in the markdown source. */
export interface LinkDestination {
  /** Source offsets of the destination (of the whole `<...>` for an autolink). */
  start: number;
  end: number;
  /** The URL as the parser read it (what a rewriter is given). */
  url: string;
  kind: LinkKind;
  /** `bracketed`: written `<...>`; `autolink`: a whole `<scheme:...>` link, which has no separate destination. */
  form: 'bare' | 'bracketed' | 'autolink';
}

/**
 * The destinations of the links, images and link definitions of markdown, by source offsets. The parser
 * finds the links (so code blocks and code spans are left alone). `[text][ref]` links have none of their own
 * (their definition does). `tree` is the markdown already parsed, when the caller has it.
 */
export function findLinkDestinations(markdown: string, tree?: Root): LinkDestination[] {
  // Every destination found below starts at a `[` (links, images, definitions) or a `<` (autolinks): markdown
  // without either has none, and is not parsed to learn so.
  if (!tree && !CAN_HOLD_DESTINATION.test(markdown)) return [];
  const found: LinkDestination[] = [];
  visit(tree ?? parseMarkdown(markdown), (node) => {
    if (node.type !== 'link' && node.type !== 'image' && node.type !== 'definition') return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    if (node.type === 'link' && markdown[start] === '<' && markdown[end - 1] === '>') {
      found.push({ start, end, url: node.url, kind: 'link', form: 'autolink' });
      return;
    }
    const open = node.type === 'image' ? start + 1 : start;
    if (markdown[open] !== '[') return; // a literal autolink (https://... in text): nothing to rewrite in place
    const close = labelEnd(markdown, open, end);
    if (close === -1) return;
    if (node.type === 'definition') {
      if (markdown[close] !== ':') return;
    } else if (markdown[close] !== '(' || markdown[end - 1] !== ')') {
      return;
    }
    const span = destinationSpan(markdown, close + 1, node.type === 'definition' ? end : end - 1);
    if (!span) return;
    found.push({ ...span, url: node.url, kind: node.type, form: markdown[span.start] === '<' ? 'bracketed' : 'bare' });
  });
  return found;
}

/**
 * Replaces the destinations that `rewrite` changes, leaving every other byte as it was: re-serializing the
 * whole document would change its formatting, while this way stored markdown stays what the author wrote,
 * line merges stay small, and a Git sync does not rewrite every page. Linear in the length of the markdown.
 */
export function applyLinkRewrites(markdown: string, destinations: readonly LinkDestination[], rewrite: LinkRewriter): string {
  return applyLinkRewritesKeepingShape(markdown, destinations, rewrite).markdown;
}

/**
 * `applyLinkRewrites`, also saying whether the result provably parses into a tree of the same shape as
 * `markdown` (the same nodes, only destinations changed), so that what was measured on the parse of
 * `markdown` (its depth, for the content limits) holds for the result without parsing it again. That is
 * so when every replaced span was exactly the destination the parser read (no escapes or character
 * references, which would make the source and the URL differ) and every replacement is read back as one
 * destination ending where it ends (see `keepsDestination`). Autolinks become ordinary links: not the same.
 */
export function applyLinkRewritesKeepingShape(
  markdown: string,
  destinations: readonly LinkDestination[],
  rewrite: LinkRewriter,
): { markdown: string; sameShape: boolean } {
  const spans: Span[] = [];
  let sameShape = true;
  for (const destination of destinations) {
    const replacement = rewrite(destination.url, destination.kind);
    if (replacement === undefined || replacement === destination.url) continue;
    const { start, end } = destination;
    let text: string;
    if (destination.form === 'autolink') {
      // What an autolink (`<ref:x>`) is rewritten to (a path) is not a valid autolink, so it becomes an
      // ordinary link showing the text that was written.
      text = `[${markdown.slice(start + 1, end - 1)}](${formatDestination(replacement)})`;
      sameShape = false;
    } else if (destination.form === 'bracketed') {
      // A destination written in angle brackets keeps them (the author's form).
      text = `<${replacement.replace(/[<>]/g, encodeURIComponent)}>`;
    } else {
      text = formatDestination(replacement);
    }
    if (sameShape && !(isPlainDestination(markdown.slice(start, end), destination.url) && keepsDestination(text))) sameShape = false;
    spans.push({ start, end, replacement: text });
  }
  if (spans.length === 0) return { markdown, sameShape: true };
  spans.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const span of spans) {
    parts.push(markdown.slice(at, span.start), span.replacement);
    at = span.end;
  }
  parts.push(markdown.slice(at));
  return { markdown: parts.join(''), sameShape };
}

/*
 * A destination is read by the parser as a raw run (CommonMark "link destination"): bare, it ends at the first
 * space, line ending or ASCII control character or unbalanced `)`, and a backslash escapes the next character;
 * in angle brackets, it ends at the first `>` and may not hold `<` nor a line ending. Text holding none of
 * the characters that steer that reading (and no `&`, so no character reference either) is read as one
 * destination, whatever it says, ending where it ends; what follows it (a title, the `)`) is read as before.
 */
const BARE_DESTINATION = /^[^\\\s\x00-\x1f\x7f()<>&]+$/;
const BRACKETED_DESTINATION = /^<[^\\\r\n<>&]*>$/;

function keepsDestination(text: string): boolean {
  return BARE_DESTINATION.test(text) || BRACKETED_DESTINATION.test(text);
}

/** Whether `source` (a span found by `findLinkDestinations`) is the destination `url` written as it is, with no escape nor reference. */
function isPlainDestination(source: string, url: string): boolean {
  return keepsDestination(source) && (source === url || source === `<${url}>`);
}

/**
 * Rewrites the destinations of links, images and link definitions (findLinkDestinations, then
 * applyLinkRewrites). Markdown past the content limits (stored before they existed) is answered as it is:
 * its parse would take minutes or overflow the stack.
 */
export function rewriteLinks(markdown: string, rewrite: LinkRewriter, tree?: Root): string {
  if (!tree && markdownLimitBreach(markdown) !== undefined) return markdown;
  return applyLinkRewrites(markdown, findLinkDestinations(markdown, tree), rewrite);
}

/** Splits a link destination into its path, and its `?query#fragment` suffix (kept as is). */
export function splitDestination(url: string): { path: string; suffix: string } {
  const cut = url.search(/[?#]/);
  return cut === -1 ? { path: url, suffix: '' } : { path: url.slice(0, cut), suffix: url.slice(cut) };
}

/** Whether a destination points inside the repository (not to a site, a mail address or an anchor). */
export function isRelativeDestination(url: string): boolean {
  return url !== '' && !url.startsWith('#') && !url.startsWith('//') && !URL_SCHEME.test(url);
}

export function safeDecodeURI(value: string): string {
  try {
    return decodeURI(value);
  } catch {
    return value;
  }
}

/** Percent-encodes what a markdown destination or URL path cannot hold, keeping `/`. */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}
