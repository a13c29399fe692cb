// Types only: the renderer's modules load with the first page rendered (render-pool.ts), not with this package.
export type { RenderInput, RenderOutput, RenderedFile, RenderedHeading } from '@quire/render';
export type { RenderPool } from './render/render-pool.js';
// The handler loads its modules once warmed or asked for a page (deferred-handler.ts), not with this package.
export { createReaderHandler } from './deferred-handler.js';
export { ASSET_PREFIX, isReaderPath } from './reader-paths.js';
export type { HeaderList } from './http/respond.js';
export type { ReaderChange, ReaderChanges, ReaderHandler, ReaderOptions } from './reader-options.js';
