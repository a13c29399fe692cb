import { OFF_THREAD_MARKDOWN_LENGTH, ON_THREAD_INLINE_DELIMITERS } from '@quire/markdown-rules';
import { afterAll, describe, expect, it } from 'vitest';
import { createRenderPool } from './render-pool.js';
import { renderMarkdown } from '@quire/render';

/** The slowest arrangement of inline delimiters measured, with `delimiters` of them in one paragraph. */
const dense = (delimiters: number): string => '*a*b'.repeat(Math.floor(delimiters / 2)) + (delimiters % 2 === 1 ? '*' : '');

// The worker runs from dist/ (a thread cannot load TypeScript): `npx turbo build` first.
describe('createRenderPool', () => {
  const pool = createRenderPool();
  afterAll(() => pool.close());

  it('renders long pages in the worker thread, the same as on the event loop', async () => {
    const markdown = `# Long\n\n${'Some **text** and `code`.\n\n```js\nconst x = 1;\n```\n\n'.repeat(Math.ceil(OFF_THREAD_MARKDOWN_LENGTH / 40))}<script>alert(1)</script>\n`;
    expect(markdown.length).toBeGreaterThanOrEqual(OFF_THREAD_MARKDOWN_LENGTH);
    const input = { markdown, pagePath: 'long', pages: {}, files: {} };
    const before = pool.workerRenders();
    const out = await pool.render(input);
    expect(pool.workerRenders()).toBe(before + 1);
    expect(out).toEqual(renderMarkdown(input));
    expect(out.html).not.toContain('<script');
    // Short pages stay on the event loop (no thread hop for the common case).
    expect(await pool.render({ ...input, markdown: '# Short' })).toEqual(renderMarkdown({ ...input, markdown: '# Short' }));
    expect(pool.workerRenders()).toBe(before + 1);
  });

  it('renders a short page in the worker once a paragraph holds more inline delimiters than the server parses on its event loop', async () => {
    const input = { pagePath: 'dense', pages: {}, files: {} };
    const before = pool.workerRenders();
    const atThreshold = { ...input, markdown: dense(ON_THREAD_INLINE_DELIMITERS) };
    expect(await pool.render(atThreshold)).toEqual(renderMarkdown(atThreshold));
    expect(pool.workerRenders()).toBe(before);
    const past = { ...input, markdown: dense(ON_THREAD_INLINE_DELIMITERS + 1) };
    const out = await pool.render(past);
    expect(pool.workerRenders()).toBe(before + 1);
    expect(out).toEqual(renderMarkdown(past));
    expect(out.html).toContain('<em>');
  });
});
