import { diffArrays, diffLines, type ChangeObject } from 'diff';

/*
 * The two diffs a reviewer reads, both computed by the `diff` library (jsdiff), never by hand:
 * - the Markdown diff, line by line, as a unified text diff;
 * - the rendered diff, block by block: each side is rendered by @quire/render (so sanitized exactly as the
 *   reader renders it), split into its top-level blocks (paragraphs, headings, lists, tables, hints...), and
 *   the two lists of blocks are diffed as arrays of their HTML. A block that changed shows as the old one
 *   removed and the new one added; the removed one's ids get a prefix (`before:`, which no heading anchor or
 *   tabs id holds), so that ids stay unique on the screen and each tab controls its own panel.
 */

export type DiffKind = 'added' | 'removed' | 'same';

export interface DiffLine {
  kind: DiffKind;
  text: string;
}

export interface DiffBlock {
  kind: DiffKind;
  html: string;
}

const kindOf = (change: ChangeObject<unknown>): DiffKind => (change.added ? 'added' : change.removed ? 'removed' : 'same');

export function markdownDiff(before: string, after: string): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const change of diffLines(before, after)) {
    const text = change.value.endsWith('\n') ? change.value.slice(0, -1) : change.value;
    for (const line of text.split('\n')) lines.push({ kind: kindOf(change), text: line });
  }
  return lines;
}

/** The top-level blocks of sanitized HTML, each as its own HTML (parsed by the browser, not executed). */
export function htmlBlocks(html: string): string[] {
  const parsed = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  return Array.from(parsed.body.childNodes)
    .map((node) => (node instanceof Element ? node.outerHTML : (node.textContent ?? '').trim()))
    .filter((block) => block.length > 0);
}

const ID_ATTRIBUTES = ['id', 'aria-controls', 'aria-labelledby'] as const;

/** The HTML of a removed block with its ids, and the references to them, prefixed (see above). */
function withOldIds(html: string): string {
  if (!html.includes(' id=')) return html;
  const parsed = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  for (const element of Array.from(parsed.body.querySelectorAll('[id], [aria-controls], [aria-labelledby]'))) {
    for (const name of ID_ATTRIBUTES) {
      const value = element.getAttribute(name);
      if (value) element.setAttribute(name, value.split(/\s+/).map((id) => `before:${id}`).join(' '));
    }
  }
  return parsed.body.innerHTML;
}

export function renderedDiff(beforeHtml: string, afterHtml: string): DiffBlock[] {
  return diffArrays(htmlBlocks(beforeHtml), htmlBlocks(afterHtml)).flatMap((change) => {
    const kind = kindOf(change);
    return change.value.map((html) => ({ kind, html: kind === 'removed' ? withOldIds(html) : html }));
  });
}
