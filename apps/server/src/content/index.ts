// The content core: pure modules over a small storage interface (ObjectReader + TreeWriter.collect).
export * from './changes.js';
export * from './errors.js';
export * from './files.js';
export * from './hash.js';
export * from './markdown/index.js';
export * from './merge.js';
export * from './objects.js';
export * from './tree.js';
export * from './semantic-changes.js';
