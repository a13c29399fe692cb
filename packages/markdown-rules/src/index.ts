// Pure rules of page Markdown that apps/server and apps/reader both apply (the reader may not import the
// server's modules, so what both must decide alike lives here). No dependencies, no I/O.
export { classifyLink, resolvePath, safeDecode, URL_SCHEME, type LinkTarget } from './links.js';
export {
  inlineDelimiterCount,
  MAX_INLINE_DELIMITERS,
  OFF_THREAD_MARKDOWN_LENGTH,
  ON_THREAD_INLINE_DELIMITERS,
  parsesOffThread,
} from './delimiters.js';
