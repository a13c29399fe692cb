/**
 * Rewrites the destinations of links, images and link definitions in markdown, leaving every other byte as
 * it was. The parser finds the links (so code blocks and code spans are left alone); the destinations are
 * then replaced in place by their source offsets, because re-serializing the whole document would change
 * its formatting and make every sync a rewrite of every page.
 */
import type { Nodes } from 'mdast';
import { parseCommonMark } from '../content/markdown-libraries.js';

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

function visit(node: Nodes, each: (node: Nodes) => void): void {
  each(node);
  if ('children' in node) for (const child of node.children) visit(child as Nodes, each);
}

export function rewriteLinks(markdown: string, rewrite: LinkRewriter): string {
  const tree = parseCommonMark(markdown);
  const spans: Span[] = [];
  visit(tree, (node) => {
    if (node.type !== 'link' && node.type !== 'image' && node.type !== 'definition') return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    const open = node.type === 'image' ? start + 1 : start;
    if (markdown[open] !== '[') return; // an autolink such as <https://...>: nothing relative to rewrite
    const close = labelEnd(markdown, open, end);
    if (close === -1) return;
    let from: number;
    if (node.type === 'definition') {
      if (markdown[close] !== ':') return;
      from = close + 1;
    } else {
      // `[text][ref]` and `[text]` point at a definition, which is rewritten on its own.
      if (markdown[close] !== '(' || markdown[end - 1] !== ')') return;
      from = close + 1;
    }
    const span = destinationSpan(markdown, from, node.type === 'definition' ? end : end - 1);
    if (!span) return;
    const replacement = rewrite(node.url, node.type);
    if (replacement === undefined || replacement === node.url) return;
    spans.push({ ...span, replacement: formatDestination(replacement) });
  });
  spans.sort((a, b) => b.start - a.start);
  let result = markdown;
  for (const span of spans) result = result.slice(0, span.start) + span.replacement + result.slice(span.end);
  return result;
}

/** Splits a link destination into its path, and its `?query#fragment` suffix (kept as is). */
export function splitDestination(url: string): { path: string; suffix: string } {
  const cut = url.search(/[?#]/);
  return cut === -1 ? { path: url, suffix: '' } : { path: url.slice(0, cut), suffix: url.slice(cut) };
}

/** Whether a destination points inside the repository (not to a site, a mail address or an anchor). */
export function isRelativeDestination(url: string): boolean {
  return url !== '' && !url.startsWith('#') && !url.startsWith('//') && !/^[a-z][a-z0-9+.-]*:/i.test(url);
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
