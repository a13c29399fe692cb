// Types only: the renderer's modules load with the first page rendered (render-pool.ts), not with this package.
export type { RenderInput, RenderOutput, RenderedFile, RenderedHeading } from './render/markdown.js';
export { createRenderPool, type RenderPool } from './render/render-pool.js';
export { createReaderHandler, ASSET_PREFIX, type ReaderHandler, type ReaderOptions } from './handler.js';
