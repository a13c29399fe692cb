import { inlineDelimiterCount, MAX_INLINE_DELIMITERS, OFF_THREAD_MARKDOWN_LENGTH, ON_THREAD_INLINE_DELIMITERS } from '@quire/markdown-rules';
import type * as mdast from 'mdast';
import { ContentError } from '../errors.js';
import { parseMarkdown } from './syntax.js';

/*
 * The inline-delimiter measure and the thresholds that send a parse to the markdown worker
 * (markdown-pool.ts) or refuse it are @quire/markdown-rules', which the reader's rendering applies too.
 */
export {
  inlineDelimiterCount,
  MAX_INLINE_DELIMITERS,
  OFF_THREAD_MARKDOWN_LENGTH,
  ON_THREAD_INLINE_DELIMITERS,
  parsesOffThread,
} from '@quire/markdown-rules';

/*
 * The limits of stored content, enforced when content is written (change-request edits, comments, Git
 * imports), so that everything stored can be read, converted and rendered again. Without them, markdown
 * nested a few thousand lists or quotes deep was stored, and then every conversion of it overflowed the
 * stack; and the markdown parser's time grows faster than linearly with nesting, so depth is judged from
 * the source text, in one linear pass, before the parser ever sees it.
 */

/** Characters of markdown in one page or comment (the contract's `maxLength` of page markdown). */
export const MAX_MARKDOWN_LENGTH = 1_000_000;
/** Levels of quotes and lists nested in one another (a GitHub alert or GitBook hint counts as a quote). */
export const MAX_BLOCK_NESTING = 32;
/** Depth of the parsed tree: block nesting and inline formatting (emphasis, links...) together. */
export const MAX_TREE_DEPTH = 100;

const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)/;
const THEMATIC_BREAK = /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

/**
 * An upper bound of the quote and list nesting of markdown, from its text alone. A container a line is
 * nested in is continued on that line by a `>`, opened by a list marker, or continued by at least two
 * columns of indentation (a list item's content offset), so counting the `>`s and markers at the start of a
 * line, plus half the indentation before each of them, never counts less than the real nesting.
 */
export function sourceNestingDepth(markdown: string): number {
  let deepest = 0;
  let lineStart = 0;
  while (lineStart <= markdown.length) {
    let lineEnd = markdown.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = markdown.length;
    let i = lineStart;
    let depth = 0;
    for (;;) {
      let width = 0;
      while (i < lineEnd && (markdown[i] === ' ' || markdown[i] === '\t')) {
        width += markdown[i] === '\t' ? 4 : 1;
        i++;
      }
      if (i >= lineEnd) break;
      if (markdown[i] === '>') {
        depth += Math.floor(width / 2) + 1;
        i++;
        continue;
      }
      // Only the start of the rest of the line is looked at, so the scan stays linear.
      const head = markdown.slice(i, Math.min(lineEnd, i + 11));
      const marker = LIST_MARKER.exec(head);
      if (!marker || THEMATIC_BREAK.test(markdown.slice(i, lineEnd))) break;
      depth += Math.floor(width / 2) + 1;
      i += marker[0].length;
    }
    if (depth > deepest) deepest = depth;
    lineStart = lineEnd + 1;
  }
  return deepest;
}

/** The depth of a parsed tree (the root is depth 0), measured without recursion. */
export function treeDepth(root: mdast.Root): number {
  let deepest = 0;
  const stack: [mdast.Nodes, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if ('children' in node) for (const child of node.children as mdast.Nodes[]) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Parses markdown that is about to be stored, refusing (ContentError `content_limit`, whose message names
 * the limit) what passes a limit. `what` names the content in the message, e.g. `document.markdown`.
 */
export function parseMarkdownWithinLimits(markdown: string, what = 'markdown'): mdast.Root {
  const breach = markdownLimitBreach(markdown, what);
  if (breach !== undefined) throw new ContentError('content_limit', breach);
  const tree = parseMarkdown(markdown);
  const deep = treeDepthBreach(treeDepth(tree), what);
  if (deep !== undefined) throw new ContentError('content_limit', deep);
  return tree;
}

/** The message of the tree-depth limit for a parse tree `depth` levels deep, or undefined within it. */
export function treeDepthBreach(depth: number, what = 'markdown'): string | undefined {
  return depth > MAX_TREE_DEPTH ? `${what} nests blocks and inline formatting ${depth} levels deep; the limit is ${MAX_TREE_DEPTH} levels` : undefined;
}

/**
 * What `parseMarkdownWithinLimits` refuses markdown for, given the depth of its parse tree (measured by a
 * parse done already, e.g. while reading its links): the same checks in the same order, without parsing again.
 */
export function limitBreachOfParsed(markdown: string, depth: number, what = 'markdown', delimiters?: number): string | undefined {
  return markdownLimitBreach(markdown, what, delimiters) ?? treeDepthBreach(depth, what);
}

/**
 * `parsesOffThread` of a text whose inline delimiters were counted already (`inlineDelimiterCount`), so that
 * a caller that also checks the limits (`markdownLimitBreach` with that count) scans the text for them once.
 */
export function parsesOffThreadCounted(markdown: string, delimiters: number): boolean {
  return markdown.length >= OFF_THREAD_MARKDOWN_LENGTH || delimiters > ON_THREAD_INLINE_DELIMITERS;
}

/**
 * The limit markdown passes that can be told from its text alone (length, quote and list nesting, inline
 * delimiters: `counted` when the caller counted them already), in one linear pass, or undefined. Readers of stored markdown check it before parsing: markdown stored before the
 * limits existed may pass them, and its parse would take minutes or overflow the stack.
 */
export function markdownLimitBreach(markdown: string, what = 'markdown', counted?: number): string | undefined {
  if (markdown.length > MAX_MARKDOWN_LENGTH) return `${what} is ${markdown.length} characters long; the limit is ${MAX_MARKDOWN_LENGTH} characters`;
  const nesting = sourceNestingDepth(markdown);
  if (nesting > MAX_BLOCK_NESTING) return `${what} nests quotes and lists up to ${nesting} levels deep; the limit is ${MAX_BLOCK_NESTING} levels`;
  const delimiters = counted ?? inlineDelimiterCount(markdown);
  if (delimiters > MAX_INLINE_DELIMITERS) {
    return `${what} has ${delimiters} inline delimiters (* _ [ ] \` ~ <) in one paragraph; the limit is ${MAX_INLINE_DELIMITERS}`;
  }
  return undefined;
}

/** Refuses markdown that passes a limit (see `parseMarkdownWithinLimits`). */
export function checkMarkdownLimits(markdown: string, what?: string): void {
  parseMarkdownWithinLimits(markdown, what);
}
