import type { BlockContent, Blockquote, Paragraph, Parent, Root, RootContent, Text } from 'mdast';

/*
 * Hints (callouts) in the two spellings the content holds: GitBook's `{% hint style="info" %}` ... `{% endhint %}`
 * tags (how the API writes hints without an alert marker, and how Git-synced GitBook content spells them) and
 * GitHub's `> [!NOTE]` alerts. Both become one `hint` node that remark-rehype turns into
 * `<div class="hint hint-<style>" role="note" aria-label="<Style>">`, so the page shows them alike.
 */

export const HINT_STYLES = ['info', 'success', 'warning', 'danger'] as const;
export type HintStyle = (typeof HINT_STYLES)[number];

/** What a hint of each style is called, for assistive technology (its `aria-label`). */
export const HINT_NAMES: Record<HintStyle, string> = { info: 'Info', success: 'Success', warning: 'Warning', danger: 'Danger' };

const ALERT_STYLE: Record<string, HintStyle> = {
  NOTE: 'info',
  TIP: 'success',
  IMPORTANT: 'info',
  WARNING: 'warning',
  CAUTION: 'danger',
};

const OPEN_TAG = /^\{%\s*hint\s+style\s*=\s*"([a-z]+)"\s*%\}[ \t]*(?:\n|$)/;
const CLOSE_TAG = /(?:^|\n)[ \t]*\{%\s*endhint\s*%\}\s*$/;

interface HintNode extends Parent {
  type: 'hint';
  children: BlockContent[];
}

function hintNode(style: string, children: RootContent[]): HintNode {
  const known = (HINT_STYLES as readonly string[]).includes(style) ? (style as HintStyle) : 'info';
  return {
    type: 'hint',
    children: children as BlockContent[],
    // The style's name is the note's accessible name: its colour and icon say it only to the eye.
    data: { hName: 'div', hProperties: { className: ['hint', `hint-${known}`], role: 'note', ariaLabel: HINT_NAMES[known] } },
  };
}

/** The first text of a paragraph, when the paragraph starts with text. */
function leadingText(node: RootContent | undefined): Text | undefined {
  if (node?.type !== 'paragraph') return undefined;
  const first = node.children[0];
  return first?.type === 'text' ? first : undefined;
}

function trailingText(node: RootContent | undefined): Text | undefined {
  if (node?.type !== 'paragraph') return undefined;
  const last = node.children[node.children.length - 1];
  return last?.type === 'text' ? last : undefined;
}

/** Removes a paragraph's text that became empty once a tag was cut out of it. */
function withoutEmpty(nodes: RootContent[]): RootContent[] {
  return nodes.filter((node) => !(node.type === 'paragraph' && node.children.every((child) => child.type === 'text' && child.value.trim() === '')));
}

/** GitBook tags among the children of one parent; a tag never closed is left as the text it is. */
function foldGitBookHints(children: RootContent[]): RootContent[] {
  const out: RootContent[] = [];
  for (let index = 0; index < children.length; index++) {
    const node = children[index]!;
    const text = leadingText(node);
    const open = text ? OPEN_TAG.exec(text.value) : null;
    if (!open || !text) {
      out.push(node);
      continue;
    }
    // Find the closing tag: in this same paragraph or in a later sibling paragraph.
    let closeAt = -1;
    for (let probe = index; probe < children.length; probe++) {
      const tail = trailingText(children[probe]);
      const tailValue = probe === index && tail === text ? text.value.slice(open[0].length) : tail?.value;
      if (tailValue !== undefined && CLOSE_TAG.test(tailValue)) {
        closeAt = probe;
        break;
      }
    }
    if (closeAt < 0) {
      out.push(node);
      continue;
    }
    const inner = children.slice(index, closeAt + 1).map((child) => structuredClone(child));
    const firstText = leadingText(inner[0])!;
    firstText.value = firstText.value.slice(open[0].length);
    const lastText = trailingText(inner[inner.length - 1])!;
    lastText.value = lastText.value.replace(CLOSE_TAG, '');
    out.push(hintNode(open[1]!, withoutEmpty(inner)) as unknown as RootContent);
    index = closeAt;
  }
  return out;
}

const ALERT_MARKER = /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(?:\n|$)/;

function alertOf(quote: Blockquote): HintNode | undefined {
  const first = quote.children[0] as Paragraph | undefined;
  const text = leadingText(first);
  const marker = text ? ALERT_MARKER.exec(text.value) : null;
  if (!marker || !text) return undefined;
  text.value = text.value.slice(marker[0].length);
  return hintNode(ALERT_STYLE[marker[1]!]!, withoutEmpty(quote.children));
}

function transform(parent: Parent): void {
  for (const child of parent.children) {
    if ('children' in child && Array.isArray(child.children)) transform(child as Parent);
  }
  const folded = foldGitBookHints(parent.children as RootContent[]).map((child) =>
    child.type === 'blockquote' ? ((alertOf(child) as unknown as RootContent | undefined) ?? child) : child,
  );
  parent.children = folded;
}

/** remark plugin: hints in both spellings become `hint` nodes. */
export function remarkHints() {
  return (tree: Root) => transform(tree);
}
