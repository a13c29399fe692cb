import type { Nodes } from 'mdast';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/seeded-random.js';
import { generateMarkdown } from '../../../test/markdown-corpus.js';
import { treeDepth } from './limits.js';
import { applyLinkRewritesKeepingShape, findLinkDestinations } from './links.js';
import { parseMarkdown } from './syntax.js';

/** A tree without what a destination change may change: positions, URLs and the text of raw autolinks. */
function shape(node: Nodes): unknown {
  const { position: _position, url: _url, ...rest } = node as Nodes & { url?: string };
  return 'children' in node ? { ...rest, children: (node.children as Nodes[]).map(shape) } : rest;
}

const DESTINATIONS = ['page.md', 'a/b.md#x', '<with space.md>', 'x\\_y.md', 'a&amp;b.md', 'p(1).md', 'https://e.org/', '#top', 'q.md "Title"', '../up.md'];
const REPLACEMENTS = ['/getting-started/install', '/p#frag', '.gitbook/assets/a%20b.png', '/with space', '/paren(s)', '/back\\slash', '/a&b', '/x*y*z', '/u_v_'];

describe('applyLinkRewritesKeepingShape', () => {
  it('says the tree keeps its shape only when a parse of the result confirms it', { timeout: 120_000 }, () => {
    const random = seededRandom(27);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const pages = generateMarkdown(27, 150).map((page, i) => {
      // Links of every form among the generated blocks, some next to emphasis that a bad rewrite would bind.
      const links = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `${pick(['', '*', '_', '**'])}[l ${i}](${pick(DESTINATIONS)})${pick(['', '*', '_'])}${random() < 0.1 ? ` <ref:auto-${i}>` : ''}`);
      return `${page}\n\n${links.join(' and ')}\n\n[ref]: ${pick(DESTINATIONS)}\n`;
    });
    let kept = 0;
    let changed = 0;
    for (const markdown of pages) {
      const tree = parseMarkdown(markdown);
      const destinations = findLinkDestinations(markdown, tree);
      const result = applyLinkRewritesKeepingShape(markdown, destinations, (url) => (url.startsWith('http') || url.startsWith('#') ? undefined : pick(REPLACEMENTS)));
      if (result.markdown === markdown) continue;
      changed += 1;
      if (!result.sameShape) continue;
      kept += 1;
      const again = parseMarkdown(result.markdown);
      expect(shape(again)).toEqual(shape(tree));
      expect(treeDepth(again)).toBe(treeDepth(tree));
    }
    expect(kept).toBeGreaterThan(0);
    expect(changed).toBeGreaterThan(kept);
  });

  it('keeps the shape for plain relative links rewritten to page paths, as a Git import writes them', () => {
    const markdown = '# T\n\nSee [next](page-2.md), ![d](../a.png) and [r].\n\n[r]: <other page.md>\n';
    const result = applyLinkRewritesKeepingShape(markdown, findLinkDestinations(markdown), (url) => `/s/${url.replace(/\W/g, '-')}`);
    expect(result).toEqual({ markdown: '# T\n\nSee [next](/s/page-2-md), ![d](/s/---a-png) and [r].\n\n[r]: </s/other-page-md>\n', sameShape: true });
    // An escape in the source, a replacement the parser would read differently, an autolink: parsed again.
    for (const [source, to] of [['[a](x\\_y.md)', '/p'], ['[a](x.md)', '/back\\'], ['<ref:x>', '/p'], ['[a](x&amp;.md)', '/p']]) {
      expect(applyLinkRewritesKeepingShape(source!, findLinkDestinations(source!), () => to).sameShape).toBe(false);
    }
  });
});
