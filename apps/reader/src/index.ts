export { renderMarkdown, MAX_RENDERED_MARKDOWN, type RenderInput, type RenderOutput, type RenderedFile, type RenderedHeading } from './render/markdown.js';
export { createRenderPool, type RenderPool } from './render/render-pool.js';
export { createReaderHandler, ASSET_PREFIX, type ReaderHandler, type ReaderOptions } from './handler.js';
