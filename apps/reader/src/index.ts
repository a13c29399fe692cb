// Types only: the renderer's modules load with the first page rendered (render-pool.ts), not with this package.
export type { RenderInput, RenderOutput, RenderedFile, RenderedHeading } from '@quire/render';
export { createRenderPool, type RenderPool } from './render/render-pool.js';
export { createReaderHandler } from './handler.js';
export { ASSET_PREFIX } from './http/assets.js';
export type { HeaderList } from './http/respond.js';
export type { ReaderChange, ReaderChanges, ReaderHandler, ReaderOptions } from './reader-options.js';
