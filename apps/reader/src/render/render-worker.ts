import { renderMarkdown, type RenderInput, type RenderOutput } from '@quire/render';

/** The worker thread's task (render-pool.ts): one page's Markdown to HTML. */
export default function renderTask(input: RenderInput): RenderOutput {
  return renderMarkdown(input);
}
