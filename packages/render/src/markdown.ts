import { classifyLink } from '@quire/markdown-rules';
import GithubSlugger from 'github-slugger';
import type { Element, ElementContent, Root as HastRoot, RootContent as HastContent } from 'hast';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize, { defaultSchema, type Options as SanitizeSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { HINT_NAMES, remarkHints } from './hints.js';
import { rehypeTabs, remarkTabs, TABS_CLASS, TABS_PANEL_CLASS, TABS_TITLE_CLASS } from './tabs.js';

/*
 * Page Markdown -> HTML for readers: remark-parse + remark-gfm -> tabs -> hints -> remark-rehype (raw HTML in the
 * content is dropped, never passed through) -> rehype-sanitize with GitHub's schema (no script, no event
 * handler, no javascript: or data: URL) -> links and images resolved to the site's addresses -> highlighting
 * -> stable heading anchors -> the tabs pattern (tabs.ts) -> HTML. Everything after the sanitizer adds only what this module makes itself
 * (classes, ids, the site's own addresses), so nothing from the content can reach the page unsanitized.
 *
 * The input is plain data (no callbacks) so the same function runs in a worker thread (render-pool.ts).
 */

/** Longest Markdown rendered: the API refuses to store more (content limits in apps/server/README.md). */
export const MAX_RENDERED_MARKDOWN = 1_000_000;

export interface RenderedFile {
  /** Address of the file on the site (the reader serves it through the visitor's token). */
  href: string;
  name: string;
  width?: number;
  height?: number;
}

export interface RenderInput {
  markdown: string;
  /** Path of the page inside its space, against which relative links resolve. */
  pagePath: string;
  /** Site address of every page reachable by readers, by `id:<pageId>` and `path:<page path>`. */
  pages: Record<string, string>;
  /** Files of the space, by `id:<fileId>`, `path:<repository path>` and `name:<file name>`. */
  files: Record<string, RenderedFile>;
}

export interface RenderedHeading {
  depth: number;
  id: string;
  text: string;
}

export interface RenderOutput {
  html: string;
  headings: RenderedHeading[];
}

const schema: SanitizeSchema = {
  ...defaultSchema,
  // Only http(s) and mail links from content; relative addresses are resolved below.
  protocols: { ...defaultSchema.protocols, href: ['http', 'https', 'mailto'], src: ['http', 'https'] },
  attributes: {
    ...defaultSchema.attributes,
    div: [
      ...(defaultSchema.attributes?.div ?? []),
      ['className', 'hint', 'hint-info', 'hint-success', 'hint-warning', 'hint-danger', TABS_CLASS, TABS_PANEL_CLASS],
      ['role', 'note'],
      ['ariaLabel', ...Object.values(HINT_NAMES)],
    ],
    p: [...(defaultSchema.attributes?.p ?? []), ['className', TABS_TITLE_CLASS]],
  },
};

function textOf(node: HastContent | ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element') return node.children.map(textOf).join('');
  return '';
}

function fileForTarget(input: RenderInput, url: string): RenderedFile | undefined {
  const target = classifyLink(url, input.pagePath);
  if (target.kind === 'file') return input.files[`id:${target.file}`];
  if (target.kind === 'asset') {
    return input.files[`path:${target.path}`] ?? input.files[`name:${target.path.split('/').pop() ?? ''}`];
  }
  return undefined;
}

/** What one render passes its plugins, in the file's data (the processor itself is built once, for all). */
interface RenderState {
  input: RenderInput;
  headings: RenderedHeading[];
}

function stateOf(file: VFileLike): RenderState {
  return (file.data as { reader: RenderState }).reader;
}

interface VFileLike {
  data: unknown;
}

/** A task list's checkboxes (shown, not used) say their state by name, as a form field must have one. */
function nameTaskState(node: Element): void {
  if (node.tagName === 'input' && node.properties.type === 'checkbox') node.properties.ariaLabel = node.properties.checked ? 'Done' : 'Not done';
}

/**
 * Links to pages become the pages' site addresses; links to pages readers cannot reach become plain text.
 * The same walk names task checkboxes (nameTaskState): one more walk of the tree would cost every render.
 */
function rehypeSiteLinks() {
  return (tree: HastRoot, file: VFileLike) => {
    const { input } = stateOf(file);
    visit(tree, 'element', (node: Element, index, parent) => {
      nameTaskState(node);
      if (node.tagName === 'a' && typeof node.properties.href === 'string') {
        const href = node.properties.href;
        // Footnote and other in-page anchors, and external addresses the sanitizer let through, stay.
        const target = classifyLink(href, input.pagePath);
        if (target.kind === 'url' || target.kind === 'anchor') return;
        const file = fileForTarget(input, href);
        let resolved: string | undefined;
        if (file) resolved = file.href;
        else if (target.kind === 'page') resolved = input.pages[`id:${target.page}`];
        else if (target.kind === 'page-path') resolved = input.pages[`path:${target.path}`];
        const anchor = 'anchor' in target && target.anchor ? `#${encodeURIComponent(target.anchor)}` : '';
        if (resolved !== undefined) {
          node.properties.href = resolved + anchor;
          return;
        }
        if (parent && index !== undefined) {
          // A broken link: its text stays, marked, without an address that leads nowhere.
          parent.children[index] = { type: 'element', tagName: 'span', properties: { className: ['broken-link'] }, children: node.children };
        }
      }
      if (node.tagName === 'img' && typeof node.properties.src === 'string') {
        const file = fileForTarget(input, node.properties.src);
        if (classifyLink(node.properties.src, input.pagePath).kind === 'url') {
          node.properties.loading = 'lazy';
          return;
        }
        if (!file) {
          if (parent && index !== undefined) {
            const alt = typeof node.properties.alt === 'string' ? node.properties.alt : '';
            parent.children[index] = { type: 'element', tagName: 'span', properties: { className: ['broken-image'] }, children: [{ type: 'text', value: alt }] };
          }
          return;
        }
        node.properties.src = file.href;
        node.properties.loading = 'lazy';
        if (file.width !== undefined && file.height !== undefined) {
          node.properties.width = Math.round(file.width);
          node.properties.height = Math.round(file.height);
        }
      }
    });
  };
}

/** Stable ids on headings (GitHub's slugs, numbered when repeated) with a link to each, collected for the TOC. */
function rehypeHeadingAnchors() {
  return (tree: HastRoot, file: VFileLike) => {
    const { headings } = stateOf(file);
    const slugger = new GithubSlugger();
    visit(tree, 'element', (node: Element) => {
      const depth = /^h([1-6])$/.exec(node.tagName)?.[1];
      if (!depth) return;
      const text = textOf(node).trim();
      if (text === '') return;
      const id = slugger.slug(text);
      node.properties.id = id;
      node.children.push({
        type: 'element',
        tagName: 'a',
        properties: { className: ['heading-anchor'], href: `#${id}`, ariaLabel: `Link to section: ${text}` },
        children: [{ type: 'text', value: '#' }],
      });
      headings.push({ depth: Number(depth), id, text });
    });
  };
}

/*
 * Built and frozen once: building it per page registered every highlight.js language anew (lowlight) and
 * compiled the sanitizer each time, about half of a small page's render. Per-render state rides in the file.
 */
const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkTabs)
  .use(remarkHints)
  .use(remarkRehype)
  .use(rehypeSanitize, schema)
  .use(rehypeSiteLinks)
  .use(rehypeHighlight, { detect: false })
  .use(rehypeHeadingAnchors)
  .use(rehypeTabs)
  .use(rehypeStringify)
  .freeze();

/** Renders a page's Markdown to sanitized HTML and the list of its headings. */
export function renderMarkdown(input: RenderInput): RenderOutput {
  if (input.markdown.length > MAX_RENDERED_MARKDOWN) {
    return {
      html: `<p class="render-limit">This page is too long to show (more than ${MAX_RENDERED_MARKDOWN.toLocaleString('en')} characters).</p>`,
      headings: [],
    };
  }
  const headings: RenderedHeading[] = [];
  const state: RenderState = { input, headings };
  const html = processor.processSync({ value: input.markdown, data: { reader: state } }).toString();
  return { html, headings };
}
