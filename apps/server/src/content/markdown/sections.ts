import type * as mdast from 'mdast';
import { markdownLimitBreach } from './limits.js';
import { groupGitBookBlocks, parseMarkdown, type GitBookBlock } from './syntax.js';

/* Search sections: a page cut at its headings, as plain text, and the anchors of those headings. */

export interface MarkdownSection {
  /** Anchor of the heading the section starts with; empty for the text before the first heading. */
  id: string;
  title: string;
  /** Plain text of the section (without the heading), blocks separated by newlines. */
  body: string;
}

/**
 * The page cut at each heading, as search indexes it; the part before the first heading only when not empty.
 * Markdown past the content limits (stored before they existed) is not parsed (see markdownLimitBreach): it
 * is one section of its text as written, so that its words are still found.
 */
export function extractSections(markdown: string): MarkdownSection[] {
  if (markdownLimitBreach(markdown) !== undefined) return markdown.trim() ? [{ id: '', title: '', body: markdown }] : [];
  const tree = parseMarkdown(markdown);
  const sections: MarkdownSection[] = [];
  const anchors = new Map<string, number>();
  let current: { id: string; title: string; parts: string[] } = { id: '', title: '', parts: [] };
  const flush = (): void => {
    const body = current.parts.filter((part) => part.trim() !== '').join('\n');
    if (current.id !== '' || body !== '') sections.push({ id: current.id, title: current.title, body });
  };
  for (const node of groupGitBookBlocks(tree.children)) {
    if (node.type === 'heading') {
      flush();
      const title = mdastText(node).trim();
      current = { id: headingAnchor(title, anchors), title, parts: [] };
    } else {
      current.parts.push(groupText(node));
    }
  }
  flush();
  return sections;
}

/** Plain text of a block: a hint's contents, each tab's title and contents (every tab is found, not only the first shown). */
function groupText(node: GitBookBlock): string {
  if (node.type === 'quireHint') return node.children.map(groupText).filter((part) => part !== '').join('\n');
  if (node.type === 'quireTabs') {
    return node.children.flatMap((tab) => [tab.title, ...tab.children.map(groupText)]).filter((part) => part.trim() !== '').join('\n');
  }
  if (node.type === 'definition' || node.type === 'html') return '';
  return mdastText(node);
}

/** Plain text of an mdast node: text values, code, image alt text; blocks on separate lines. */
function mdastText(node: mdast.Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
    case 'code':
      return node.value;
    case 'image':
    case 'imageReference':
      return node.alt ?? '';
    case 'break':
      return '\n';
    case 'html':
    case 'definition':
    case 'thematicBreak':
    case 'footnoteReference':
      return '';
    case 'table':
      // Cells as words (a row a line), not as Markdown: a snippet cut from a table reads as text, with no `|`.
      return node.children.map((row) => row.children.map(mdastText).filter((cell) => cell.trim() !== '').join(' ')).join('\n');
    default:
      if (!('children' in node)) return '';
      if (node.type === 'paragraph' || node.type === 'heading' || node.type === 'tableCell' || isPhrasingParent(node)) {
        return (node.children as mdast.Nodes[]).map(mdastText).join('');
      }
      return (node.children as mdast.Nodes[]).map(mdastText).filter((part) => part !== '').join('\n');
  }
}

function isPhrasingParent(node: mdast.Nodes): boolean {
  return ['emphasis', 'strong', 'delete', 'link', 'linkReference'].includes(node.type);
}

/**
 * The anchor of a heading, as GitHub and GitBook make them: lower case, punctuation dropped, spaces turned
 * into hyphens, and `-1`, `-2`... for repeated headings (tracked in `seen`).
 */
export function headingAnchor(title: string, seen: Map<string, number> = new Map()): string {
  const base = title
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
  const count = seen.get(base);
  seen.set(base, (count ?? 0) + 1);
  if (count === undefined) return base;
  let candidate = `${base}-${count}`;
  for (let n = count; seen.has(candidate); n++) candidate = `${base}-${n + 1}`;
  seen.set(candidate, 1);
  return candidate;
}
