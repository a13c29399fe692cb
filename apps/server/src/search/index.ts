export * from './search-index.js';
export * from './search-query.js';
export { parseSearchQuery, type SearchTerms } from './search-text.js';
export * from './organization-search.js';
export * from './search-tree-changes.js';
