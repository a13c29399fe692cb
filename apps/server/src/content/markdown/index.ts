// Markdown and the Document model: the model, markdown to Document and back, links, search sections.
export * from './document.js';
export * from './links.js';
export * from './sections.js';
export { parseMarkdown, reusableIncludeOf, reusableIncludesIn, reusableIncludeTag, rewriteIncludeTags } from './syntax.js';
export * from './to-document.js';
export * from './to-markdown.js';
export * from './limits.js';
export * from './markdown-pool.js';
