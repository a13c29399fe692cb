export { MAX_RENDERED_MARKDOWN, renderMarkdown, type RenderedFile, type RenderedHeading, type RenderInput, type RenderOutput } from './markdown.js';
export { HINT_STYLES, remarkHints, type HintStyle } from './hints.js';
export { createSectionRenderer, joinSections, splitSections, type SectionedOutput } from './sections.js';
