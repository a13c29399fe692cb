import type * as mdast from 'mdast';
import { parseCommonMark, parseGfm } from '../markdown-libraries.js';
import { groupGitBookTabs, type TabsGroup } from '@quire/markdown-rules';

/*
 * Markdown syntax that more than one reader of markdown shares: parsing, the tree walk, link definitions,
 * and the two ways hints are written (GitBook's template tags and GitHub's alerts).
 */

export function parseMarkdown(markdown: string): mdast.Root {
  return parseGfm(markdown);
}

/*
 * What GitHub Flavored Markdown adds to CommonMark only starts at these characters: tables at a `|` or, without
 * one, a delimiter row's `:-` / `-:` (`a\n:-` is a table of one column), strikethrough at `~`, footnotes at `[^`,
 * task list items at `[ ]` / `[x]` (any space or line ending between the brackets), autolink literals at `www.`, `http://` / `https://` and an `@` (emails,
 * `mailto:`, `xmpp:`); the tree transform that finds literal links in text matches only those too. Text
 * holding none of them parses into the same tree with or without the extensions (syntax.test.ts compares
 * both over the corpus and random texts), and the parse without them takes a third of the time.
 */
const GFM_SYNTAX = /[|~@]|\[\^|\[[\sxX]\]|www\.|http|:[ \t]*-|-[ \t]*:/i;

/** Whether `markdown` may hold GFM syntax (above); when not, CommonMark alone parses it the same. */
export function mayHoldGfmSyntax(markdown: string): boolean {
  return GFM_SYNTAX.test(markdown);
}

/** `parseMarkdown`'s tree, by the CommonMark parser alone when the text holds no GFM syntax (above). */
export function parseMarkdownQuickly(markdown: string): mdast.Root {
  return mayHoldGfmSyntax(markdown) ? parseGfm(markdown) : parseCommonMark(markdown);
}

/** Calls `fn` on every node of the tree, parents before children. */
export function visit(node: mdast.Nodes, fn: (node: mdast.Nodes) => void): void {
  fn(node);
  if ('children' in node) for (const child of node.children as mdast.Nodes[]) visit(child, fn);
}

export function collectDefinitions(tree: mdast.Root): Map<string, mdast.Definition> {
  const definitions = new Map<string, mdast.Definition>();
  visit(tree, (node) => {
    // The first definition of a label wins, as in CommonMark.
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node);
  });
  return definitions;
}

/** A GitBook hint (`{% hint style="info" %}` ... `{% endhint %}`) found among the top-level blocks. */
export interface HintGroup {
  type: 'quireHint';
  style: string;
  children: GitBookBlock[];
}

/** A block of markdown, or a block GitBook writes as template tags (hints, tabs). */
export type GitBookBlock = mdast.RootContent | HintGroup | TabsGroup<mdast.RootContent | HintGroup>;

/**
 * The top-level blocks with GitBook's tabs and hints grouped (see groupGitBookTabs and groupGitBookHints),
 * hints inside tabs too. Tabs first: their tags cut paragraphs that may also hold a hint's tags.
 */
export function groupGitBookBlocks(children: mdast.RootContent[]): GitBookBlock[] {
  const withTabs = groupGitBookTabs(children).map((node) =>
    node.type === 'quireTabs' ? { ...node, children: node.children.map((tab) => ({ ...tab, children: groupGitBookHints(tab.children) as (mdast.RootContent | HintGroup)[] })) } : node,
  );
  return groupGitBookHints(withTabs);
}

const HINT_OPEN = /^\{%\s*hint\s+style="([a-z]+)"\s*%\}[ \t]*(?:\n|$)/;
const HINT_CLOSE = /(?:^|\n)[ \t]*\{%\s*endhint\s*%\}\s*$/;

/**
 * GitBook writes hints as template tags that CommonMark reads as paragraph text. Repositories synced from
 * GitBook are full of them, so they are recognised here: either within one paragraph (no blank lines) or as
 * an opening paragraph, blocks, and a closing paragraph. Anything unclosed is left as the text it is.
 */
export function groupGitBookHints(children: readonly GitBookBlock[]): GitBookBlock[] {
  const out: GitBookBlock[] = [];
  for (let i = 0; i < children.length; i++) {
    const node = children[i]!;
    const open = node.type === 'paragraph' ? matchHintOpen(node) : undefined;
    if (!open) {
      out.push(node);
      continue;
    }
    const [style, first] = open;
    const collected: GitBookBlock[] = [];
    let closedAt = -1;
    if (first) {
      const closed = stripHintClose(first);
      if (closed !== undefined) {
        if (closed) collected.push(closed);
        closedAt = i;
      } else {
        collected.push(first);
      }
    }
    for (let j = i + 1; closedAt < 0 && j < children.length; j++) {
      const next = children[j]!;
      const closed = next.type === 'paragraph' ? stripHintClose(next) : undefined;
      if (closed !== undefined) {
        if (closed) collected.push(closed);
        closedAt = j;
      } else {
        collected.push(next);
      }
    }
    if (closedAt < 0) {
      out.push(node);
      continue;
    }
    out.push({ type: 'quireHint', style, children: collected });
    i = closedAt;
  }
  return out;
}

/** The hint style and the rest of the paragraph (undefined when nothing is left), if it opens a hint. */
function matchHintOpen(paragraph: mdast.Paragraph): [string, mdast.Paragraph | undefined] | undefined {
  const first = paragraph.children[0];
  if (first?.type !== 'text') return undefined;
  const match = HINT_OPEN.exec(first.value);
  if (!match) return undefined;
  const rest = first.value.slice(match[0].length);
  const children = rest ? [{ ...first, value: rest }, ...paragraph.children.slice(1)] : paragraph.children.slice(1);
  return [match[1]!, children.length > 0 ? { ...paragraph, children } : undefined];
}

/** The paragraph without a trailing `{% endhint %}` (null when nothing is left), or undefined if it has none. */
function stripHintClose(paragraph: mdast.Paragraph): mdast.Paragraph | null | undefined {
  const last = paragraph.children[paragraph.children.length - 1];
  if (last?.type !== 'text') return undefined;
  const match = HINT_CLOSE.exec(last.value);
  if (!match) return undefined;
  const rest = last.value.slice(0, match.index);
  const children = rest ? [...paragraph.children.slice(0, -1), { ...last, value: rest }] : paragraph.children.slice(0, -1);
  return children.length > 0 ? { ...paragraph, children } : null;
}

/** GitHub alert markers and the hint style each one reads as. */
export const ALERT_STYLES: Record<string, string> = {
  NOTE: 'info',
  TIP: 'success',
  IMPORTANT: 'info',
  WARNING: 'warning',
  CAUTION: 'danger',
};
/** The alert marker written for a hint style. */
export const ALERT_FOR_STYLE: Record<string, string> = { info: 'NOTE', success: 'TIP', warning: 'WARNING', danger: 'CAUTION' };
const ALERT_MARKER = /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(?:\n|$)/;

/** The hint a blockquote is, when it opens with a GitHub alert marker (`> [!NOTE]`). */
export function alertOf(quote: mdast.Blockquote): { style: string; marker: string; children: mdast.BlockContent[] } | undefined {
  const first = quote.children[0];
  if (first?.type !== 'paragraph') return undefined;
  const head = first.children[0];
  if (head?.type !== 'text') return undefined;
  const match = ALERT_MARKER.exec(head.value);
  if (!match) return undefined;
  const marker = match[1]!;
  const rest = head.value.slice(match[0].length);
  const inlines = rest ? [{ ...head, value: rest }, ...first.children.slice(1)] : first.children.slice(1);
  const children = [...(inlines.length > 0 ? [{ ...first, children: inlines }] : []), ...quote.children.slice(1)];
  return { style: ALERT_STYLES[marker]!, marker, children: children as mdast.BlockContent[] };
}

/*
 * A reusable content is inserted in a page by a paragraph of its own holding one GitBook include tag that
 * names it by id: `{% include "/reusable-contents/<id>" %}`. The address has the form of the stable page and
 * file links (`/pages/<id>`, `/files/<id>`), so that it survives renames; Git export writes it as GitBook's
 * `{% include "<relative path>/.gitbook/includes/<file>.md" %}` and import reads that back.
 */
const REUSABLE_ID = '[A-Za-z0-9_-]{1,128}';
const REUSABLE_INCLUDE = new RegExp(`^\\{%\\s*include\\s+"/reusable-contents/(${REUSABLE_ID})"\\s*%\\}$`);
const REUSABLE_ID_ONLY = new RegExp(`^${REUSABLE_ID}$`);

/** The tag that inserts the reusable content `id`; undefined for an id that cannot be written in one. */
export function reusableIncludeTag(id: string): string | undefined {
  return REUSABLE_ID_ONLY.test(id) ? `{% include "/reusable-contents/${id}" %}` : undefined;
}

/** The id of the reusable content a paragraph inserts, when the paragraph is exactly one include tag. */
export function reusableIncludeOf(paragraph: mdast.Paragraph): string | undefined {
  const only = paragraph.children.length === 1 ? paragraph.children[0] : undefined;
  if (only?.type !== 'text') return undefined;
  return REUSABLE_INCLUDE.exec(only.value.trim())?.[1];
}

/** Every reusable content id the markdown inserts (a linear scan of its lines, without parsing). */
export function reusableIncludesIn(markdown: string): string[] {
  const ids: string[] = [];
  if (!markdown.includes('/reusable-contents/')) return ids;
  for (const line of markdown.split('\n')) {
    const id = REUSABLE_INCLUDE.exec(line.trim())?.[1];
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

const INCLUDE_TAG_LINE = /^([ \t]{0,3})\{%\s*include\s+"([^"\n]+)"\s*%\}([ \t]*)$/gm;

/**
 * Rewrites the target of every include tag standing alone on its line (`{% include "<target>" %}`): `rewrite`
 * answers the new target, or undefined to keep the tag as written. Git sync uses it to turn reusable content
 * ids into GitBook's include paths and back.
 */
export function rewriteIncludeTags(markdown: string, rewrite: (target: string) => string | undefined): string {
  if (!markdown.includes('include')) return markdown;
  return markdown.replace(INCLUDE_TAG_LINE, (tag, indent: string, target: string, trail: string) => {
    const next = rewrite(target);
    return next === undefined ? tag : `${indent}{% include "${next.replace(/"/g, '%22')}" %}${trail}`;
  });
}
