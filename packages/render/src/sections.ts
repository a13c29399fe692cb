import { renderMarkdown, type RenderInput, type RenderOutput } from './markdown.js';

/*
 * Rendering a long page again on every keystroke costs time in proportion to its length (hundreds of
 * milliseconds for a couple of thousand lines), while a keystroke changes one place. A page is therefore cut
 * into sections at its ATX headings (`#` … at the start of a line, outside code fences and hints), each
 * rendered on its own and kept while its text is unchanged: a keystroke renders one section again.
 *
 * That gives the same HTML as rendering the whole page only while nothing in one section depends on
 * another: link reference definitions and footnotes do (they are looked up across the page), and so do
 * headings whose anchors the whole-page render would tell apart with a suffix. A page using any of those is
 * rendered whole. markdown.test.ts-style checks in sections.test.ts hold the sections to the whole render.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const HINT_OPEN = /^\s*\{%\s*hint\b/;
const HINT_CLOSE = /^\s*\{%\s*endhint\s*%\}/;
const TABS_OPEN = /^\s*\{%\s*tabs\s*%\}/;
const TABS_CLOSE = /^\s*\{%\s*endtabs\s*%\}/;
const CROSS_SECTION = /^ {0,3}\[[^\]]+\]:|\[\^/m;

/** The page cut at its headings, or null when a part of it refers to another (see above). */
export function splitSections(markdown: string): string[] | null {
  if (CROSS_SECTION.test(markdown)) return null;
  const sections: string[] = [];
  const slugs = new Set<string>();
  let current: string[] = [];
  let fence: string | null = null;
  let hints = 0;
  // Tabs are not cut either: a tab's heading is no section's start, and a block's ids are numbered after
  // the top-level heading before it (tabs.ts), which a cut inside the block would change.
  let tabs = 0;
  for (const line of markdown.split('\n')) {
    if (fence) {
      if (line.trimStart().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = null;
    } else {
      const opened = FENCE.exec(line);
      if (opened) fence = opened[1]!;
      else if (HINT_OPEN.test(line)) hints += 1;
      else if (HINT_CLOSE.test(line)) hints = Math.max(0, hints - 1);
      else if (TABS_OPEN.test(line)) tabs += 1;
      else if (TABS_CLOSE.test(line)) tabs = Math.max(0, tabs - 1);
      else if (ATX_HEADING.test(line)) {
        const slug = line.replace(/^#+/, '').replace(/#+\s*$/, '').trim().toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
        // A heading inside a hint or a tab cuts nothing, but its anchor is told apart from the others'.
        if (slugs.has(slug)) return null;
        slugs.add(slug);
        if (hints === 0 && tabs === 0) {
          if (current.length > 0) sections.push(current.join('\n'));
          current = [];
        }
      }
    }
    current.push(line);
  }
  sections.push(current.join('\n'));
  return sections;
}

/** The page rendered section by section: each part as `renderMarkdown` renders that section alone. */
export interface SectionedOutput {
  parts: RenderOutput[];
}

/** The parts put together: the same as `renderMarkdown` of the whole page (sections.test.ts holds it to that). */
export function joinSections({ parts }: SectionedOutput): RenderOutput {
  return { html: parts.map((part) => part.html).filter((html) => html !== '').join('\n'), headings: parts.flatMap((part) => part.headings) };
}

/**
 * A renderer for one page being edited: each call renders `input` in parts, rendering again only the
 * sections whose text changed since the previous call (with the same page path, pages and files). A page
 * that cannot be cut is one part, rendered whole. Parts that did not change are the same objects as before,
 * so a view can leave their HTML in place and replace only the part typed in.
 */
export function createSectionRenderer(): (input: RenderInput) => SectionedOutput {
  let kept = new Map<string, RenderOutput>();
  let context: Omit<RenderInput, 'markdown'> | undefined;
  return (input) => {
    const sections = splitSections(input.markdown) ?? [input.markdown];
    if (!context || context.pagePath !== input.pagePath || context.pages !== input.pages || context.files !== input.files) kept = new Map();
    context = { pagePath: input.pagePath, pages: input.pages, files: input.files };
    const next = new Map<string, RenderOutput>();
    const parts = sections.map((markdown) => {
      const part = next.get(markdown) ?? kept.get(markdown) ?? renderMarkdown({ ...input, markdown });
      next.set(markdown, part);
      return part;
    });
    kept = next;
    return { parts };
  };
}
