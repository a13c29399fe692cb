import type * as mdast from 'mdast';
import type { Options as ToMarkdownOptions } from 'mdast-util-to-markdown';
import { lazyModule } from '../lazy-module.js';

/*
 * The markdown parser and printer (micromark/mdast with GitHub Flavored Markdown), loaded on first use:
 * together they are the heaviest libraries of the server to load, and only content operations need them.
 */
const fromMarkdownModule = lazyModule<typeof import('mdast-util-from-markdown')>('mdast-util-from-markdown');
const toMarkdownModule = lazyModule<typeof import('mdast-util-to-markdown')>('mdast-util-to-markdown');
const gfmMdastModule = lazyModule<typeof import('mdast-util-gfm')>('mdast-util-gfm');
const gfmSyntaxModule = lazyModule<typeof import('micromark-extension-gfm')>('micromark-extension-gfm');

/** Parses GitHub Flavored Markdown (tables, task lists, strikethrough, autolinks, footnotes). */
export function parseGfm(markdown: string): mdast.Root {
  return fromMarkdownModule().fromMarkdown(markdown, { extensions: [gfmSyntaxModule().gfm()], mdastExtensions: [gfmMdastModule().gfmFromMarkdown()] });
}

/** Parses CommonMark without extensions (what SUMMARY.md and link rewriting need). */
export function parseCommonMark(markdown: string): mdast.Root {
  return fromMarkdownModule().fromMarkdown(markdown);
}

/** Prints an mdast tree as GitHub Flavored Markdown with these options. */
export function printGfm(root: mdast.Root, options: Omit<ToMarkdownOptions, 'extensions'>): string {
  return toMarkdownModule().toMarkdown(root, { ...options, extensions: [gfmMdastModule().gfmToMarkdown()] });
}
