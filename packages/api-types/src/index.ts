// Hand-written named aliases over the generated types; regenerate with `npx turbo build`.
export type { paths, components, operations } from './generated/schema.js';
export * from './aliases.js';
