import { afterAll, describe, expect, it } from 'vitest';
import { MARKDOWN_SAMPLES } from '../../../test/markdown-corpus.js';
import { MAX_BLOCK_NESTING } from './limits.js';
import { findLinkDestinations } from './links.js';
import { linkDestinationsAndDepthsOf } from './markdown-worker.js';
import { batchThreadCount, closeMarkdownPool, linkDestinationsAndDepthsInBatches, linkDestinationsInBatches } from './markdown-pool.js';

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

describe('linkDestinationsAndDepthsInBatches', () => {
  const texts = Array.from({ length: 600 }, (_, i) => `# Page ${i}\n\n> *quoted* [page ${i}](page-${i}.md)\n`);

  it('hands each batch to onBatch before the whole answer, which they make up together', async () => {
    const seen: Array<{ offset: number; count: number }> = [];
    const pieces = new Array<unknown>(texts.length);
    let answered = false;
    const all = await linkDestinationsAndDepthsInBatches(texts, {
      inPlaceCharacters: 0,
      onBatch: (offset, results) => {
        expect(answered).toBe(false);
        seen.push({ offset, count: results.length });
        results.forEach((result, index) => (pieces[offset + index] = result));
      },
    });
    answered = true;
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.reduce((sum, { count }) => sum + count, 0)).toBe(texts.length);
    expect(pieces).toEqual(all);
    expect(all).toEqual(linkDestinationsAndDepthsOf(texts));
  }, 180_000);

  it('hands texts parsed in place to onBatch as one batch', async () => {
    const few = texts.slice(0, 3);
    const seen: number[] = [];
    const all = await linkDestinationsAndDepthsInBatches(few, { onBatch: (offset, results) => seen.push(offset, results.length) });
    expect(seen).toEqual([0, 3]);
    expect(all).toEqual(linkDestinationsAndDepthsOf(few));
  });
});

describe('batchThreadCount', () => {
  it('leaves a core to the thread that rewrites and writes what the batches answer, and keeps one thread', () => {
    expect(batchThreadCount(1)).toBe(1);
    expect(batchThreadCount(2)).toBe(1);
    expect(batchThreadCount(4)).toBe(3);
  });
});
