import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/seeded-random.js';
import { generateMarkdown, MARKDOWN_SAMPLES } from '../../../test/markdown-corpus.js';
import { parseCommonMark, parseGfm } from '../markdown-libraries.js';
import { mayHoldGfmSyntax, parseMarkdown, parseMarkdownQuickly } from './syntax.js';

/** Pieces of markdown syntax, GFM's among them, that random texts are made of. */
const PIECES = [
  'a', 'word ', ' ', '  ', '\t', '\n', '\n\n', '*', '**', '_', '[', ']', '(', ')', '<', '>', '!', '`', '```\n', '\\', '&amp;',
  '#', '# ', '> ', '- ', '* ', '1. ', '---', ':', '-', '|', '~', '~~', '@', 'x', 'X', '^', '[^1]', '[ ]', '[x]', 'www.', 'http://',
  'https://', 'mailto:', 'a@b.co', '<div>', '[a](b.md)', '[a]: b', '![i](c.png)', '    ', 'e.org', '.', ':-', '-:',
];

function randomText(random: () => number): string {
  const length = 1 + Math.floor(random() * 40);
  let text = '';
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

describe('parseMarkdownQuickly', () => {
  // Some 3,000 parses: tens of seconds on a loaded 2-core machine.
  it('takes CommonMark alone only for text that it parses as GFM does', { timeout: 120_000 }, () => {
    const random = seededRandom(27);
    const texts = [...MARKDOWN_SAMPLES, ...generateMarkdown(27, 40), ...Array.from({ length: 1000 }, () => randomText(random))];
    let plain = 0;
    let differing = 0;
    for (const text of texts) {
      const gfm = parseMarkdown(text);
      const commonMark = parseCommonMark(text);
      if (JSON.stringify(commonMark) !== JSON.stringify(gfm)) differing += 1;
      if (!mayHoldGfmSyntax(text)) {
        plain += 1;
        expect(commonMark, JSON.stringify(text)).toEqual(gfm);
      }
      expect(parseMarkdownQuickly(text)).toEqual(gfm);
    }
    // Both kinds are many: the texts exercise the shortcut and the syntax that rules it out.
    expect(plain).toBeGreaterThan(50);
    expect(differing).toBeGreaterThan(50);
  });

  it('reads GFM syntax that needs no pipe or tilde with the extensions', () => {
    // A table of one column has no pipe; a task item, a footnote, a literal link each parse differently in CommonMark.
    for (const text of ['a\n:-\n', 'a\n-:', '- [ ] to do', '- [x] done', 'Note[^1].\n\n[^1]: here', 'see www.example.com', 'mail a@b.co', 'go http://x.io']) {
      expect(parseCommonMark(text)).not.toEqual(parseGfm(text));
      expect(parseMarkdownQuickly(text)).toEqual(parseGfm(text));
    }
  });
});
