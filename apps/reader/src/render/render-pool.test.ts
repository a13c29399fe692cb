import { afterAll, describe, expect, it } from 'vitest';
import { createRenderPool, RENDER_IN_WORKER_FROM } from './render-pool.js';
import { renderMarkdown } from './markdown.js';

// The worker runs from dist/ (a thread cannot load TypeScript): `npx turbo build` first.
describe('createRenderPool', () => {
  const pool = createRenderPool();
  afterAll(() => pool.close());

  it('renders long pages in the worker thread, the same as on the event loop', async () => {
    const markdown = `# Long\n\n${'Some **text** and `code`.\n\n```js\nconst x = 1;\n```\n\n'.repeat(Math.ceil(RENDER_IN_WORKER_FROM / 40))}<script>alert(1)</script>\n`;
    expect(markdown.length).toBeGreaterThanOrEqual(RENDER_IN_WORKER_FROM);
    const input = { markdown, pagePath: 'long', pages: {}, files: {} };
    const out = await pool.render(input);
    expect(out).toEqual(renderMarkdown(input));
    expect(out.html).not.toContain('<script');
    // Short pages stay on the event loop (no thread hop for the common case).
    expect(await pool.render({ ...input, markdown: '# Short' })).toEqual(renderMarkdown({ ...input, markdown: '# Short' }));
  });
});
