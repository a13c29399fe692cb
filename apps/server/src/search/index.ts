export * from './search-index.js';
export * from './search-query.js';
export { parseSearchQuery, type SearchTerms } from './search-text.js';
