import { describe, expect, it } from 'vitest';
import { ContentError } from '../errors.js';
import {
  documentToMarkdown,
  markdownLimitBreach,
  markdownToDocument,
  MAX_BLOCK_NESTING,
  MAX_INLINE_DELIMITERS,
  MAX_TREE_DEPTH,
  ON_THREAD_INLINE_DELIMITERS,
  parseMarkdown,
  parseMarkdownWithinLimits,
  parsesOffThread,
  parsesOffThreadCounted,
  inlineDelimiterCount,
  limitBreachOfParsed,
  treeDepth,
  sourceNestingDepth,
} from './index.js';
import { MARKDOWN_SAMPLES } from '../../../test/markdown-corpus.js';

const nestedLists = (depth: number): string => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
const nestedQuotes = (depth: number): string => `${'>'.repeat(depth)} deep`;

function refusal(markdown: string): ContentError {
  try {
    parseMarkdownWithinLimits(markdown, 'document.markdown');
  } catch (error) {
    if (error instanceof ContentError) return error;
    throw error;
  }
  throw new Error('the markdown was accepted');
}

describe('content limits', () => {
  it('never counts less nesting than the parser finds', () => {
    expect(sourceNestingDepth(nestedLists(10))).toBeGreaterThanOrEqual(10);
    expect(sourceNestingDepth(nestedQuotes(10))).toBe(10);
    expect(sourceNestingDepth('> - > 1. x')).toBe(4);
    expect(sourceNestingDepth('- - -\n\n* * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * *')).toBe(0);
    expect(sourceNestingDepth('plain text\n\n    indented code\n')).toBe(0);
  });

  it('accepts content nested up to the limit, and converts it both ways', () => {
    for (const markdown of [nestedLists(MAX_BLOCK_NESTING), nestedQuotes(MAX_BLOCK_NESTING)]) {
      parseMarkdownWithinLimits(markdown);
      const document = markdownToDocument(markdown);
      expect(markdownToDocument(documentToMarkdown(document))).toEqual(document);
    }
  });

  it('refuses 2,000 (and 700) nested lists and 5,000 nested quotes by naming the limit, before parsing them', () => {
    const started = performance.now();
    expect(refusal(`${'- '.repeat(2000)}x`).message).toMatch(/up to 2000 levels deep/);
    expect(refusal(nestedLists(700)).message).toMatch(new RegExp(`document\\.markdown nests quotes and lists up to \\d+ levels deep; the limit is ${MAX_BLOCK_NESTING} levels`));
    expect(refusal(nestedQuotes(5000)).message).toMatch(/up to 5000 levels deep; the limit is 32 levels/);
    expect(refusal(nestedQuotes(MAX_BLOCK_NESTING + 1)).code).toBe('content_limit');
    // The parser would take seconds on these; the source scan refuses them first.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses inline formatting nested past the tree depth limit, and text past the length limit', () => {
    const links = `${'*a '.repeat(MAX_TREE_DEPTH)}x${' a*'.repeat(MAX_TREE_DEPTH)}`;
    expect(refusal(links).message).toMatch(new RegExp(`the limit is ${MAX_TREE_DEPTH} levels`));
    expect(refusal('a'.repeat(1_000_001)).message).toMatch(/1000001 characters long; the limit is 1000000 characters/);
  });

  // The measure and parsesOffThread are unit-tested in packages/markdown-rules; here, the refusal.
  it('refuses markdown dense with inline delimiters past the limit, naming it', () => {
    expect(markdownLimitBreach('*a'.repeat(MAX_INLINE_DELIMITERS), 'document.markdown')).toBeUndefined();
    const started = performance.now();
    expect(refusal('*a'.repeat(MAX_INLINE_DELIMITERS + 1)).message).toBe(
      `document.markdown has ${MAX_INLINE_DELIMITERS + 1} inline delimiters (* _ [ ] \` ~ <) in one paragraph; the limit is ${MAX_INLINE_DELIMITERS}`,
    );
    // Refused by the scan, before a parse (seconds for 9,000 delimiters) could start.
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('parses the worst arrangements of delimiters allowed on the event loop in under 50 ms', () => {
    // The slowest patterns measured (see ON_THREAD_INLINE_DELIMITERS), at the most delimiters that stay on
    // the event loop. Each is parsed once first (the parser's code is compiled while warm in a server), then
    // timed in CPU time, the best of five: on a shared 2-core machine, wall time counts other processes.
    const texts = ['*a*b', 'a* ', '~a', '*a', '**a', '[a](', ']a', '`a', '*a_a[a`a~a'].map((unit) => {
      const perUnit = [...unit].filter((c) => '*_[]`~<'.includes(c)).length;
      return { unit, markdown: unit.repeat(Math.floor(ON_THREAD_INLINE_DELIMITERS / perUnit)) };
    });
    for (const { markdown } of texts) {
      expect(parsesOffThread(markdown)).toBe(false);
      parseMarkdown(markdown);
    }
    for (const { unit, markdown } of texts) {
      let best = Infinity;
      for (let run = 0; run < 5; run++) {
        const started = process.cpuUsage();
        parseMarkdown(markdown);
        const used = process.cpuUsage(started);
        best = Math.min(best, (used.user + used.system) / 1000);
      }
      expect(best, unit).toBeLessThan(50);
    }
  });
});

describe('limits with the inline delimiters counted once', () => {
  it('answers what parsesOffThread and limitBreachOfParsed answer when they count them', () => {
    const texts = [
      ...MARKDOWN_SAMPLES,
      '*a*'.repeat(ON_THREAD_INLINE_DELIMITERS),
      '*a'.repeat(ON_THREAD_INLINE_DELIMITERS / 2),
      '[a]'.repeat(MAX_INLINE_DELIMITERS),
      nestedQuotes(MAX_BLOCK_NESTING + 1),
      'x'.repeat(30_000),
    ];
    for (const markdown of texts) {
      const delimiters = inlineDelimiterCount(markdown);
      expect(parsesOffThreadCounted(markdown, delimiters)).toBe(parsesOffThread(markdown));
      const depth = markdown.length < 10_000 ? treeDepth(parseMarkdown(markdown)) : 1;
      expect(limitBreachOfParsed(markdown, depth, 'page', delimiters)).toBe(limitBreachOfParsed(markdown, depth, 'page'));
    }
  });
});
