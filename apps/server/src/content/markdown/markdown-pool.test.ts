import { afterAll, describe, expect, it } from 'vitest';
import { MARKDOWN_SAMPLES } from '../../../test/markdown-corpus.js';
import { MAX_BLOCK_NESTING } from './limits.js';
import { findLinkDestinations } from './links.js';
import { closeMarkdownPool, linkDestinationsInBatches } from './markdown-pool.js';

afterAll(() => closeMarkdownPool());

describe('linkDestinationsInBatches', () => {
  // Enough texts for several batches, so that they run in more than one task; one is past the limits.
  const pastLimits = `${'> '.repeat(MAX_BLOCK_NESTING + 1)}[deep](deep.md)\n`;
  const texts = Array.from({ length: 600 }, (_, i) =>
    i === 333
      ? pastLimits
      : `${i % 50 === 0 ? MARKDOWN_SAMPLES[(i / 50) % MARKDOWN_SAMPLES.length] : `Page ${i}, *words*.`}\n[page ${i}](page-${i}.md) and <https://example.com/${i}>\n`,
  );
  // The machine running the tests may be loaded: threads start slowly there.
  const timeout = 180_000;

  it('answers, in worker threads, what rewriteLinks finds in place, in the order of the texts', async () => {
    const batched = await linkDestinationsInBatches(texts, { inPlaceCharacters: 0 });
    expect(batched).toHaveLength(texts.length);
    expect(batched[333]).toBeNull();
    texts.forEach((markdown, i) => {
      if (i !== 333) expect(batched[i]).toEqual(findLinkDestinations(markdown));
    });
    expect(batched[5]?.some((destination) => destination.url === 'page-5.md')).toBe(true);
  }, timeout);

  it('parses few texts in place, with the same answers', async () => {
    const few = texts.slice(330, 336);
    expect(await linkDestinationsInBatches(few)).toEqual(await linkDestinationsInBatches(few, { inPlaceCharacters: 0 }));
  }, timeout);
});
