// Pure rules of page Markdown that apps/server and apps/reader both apply (the reader may not import the
// server's modules, so what both must decide alike lives here). No dependencies, no I/O.
export * from './links.js';
export * from './delimiters.js';
export * from './gitbook-tabs.js';
