import { createSectionRenderer, type RenderedFile, type RenderOutput } from '@quire/render';
import { memo, useMemo, useRef } from 'react';
import { useTabsets } from '../content/tabsets.js';

/*
 * The editor's preview: @quire/render, the reader's own renderer (raw HTML dropped, the result sanitized, so
 * its HTML may be set as is), through a section renderer kept for the page being edited: a keystroke renders
 * again only the section it changed (packages/render/src/sections.ts), and only that section's HTML is
 * replaced in the document, so the browser neither parses nor lays out the rest of a long page again. The
 * sections' wrappers take no box of their own (`display: contents`): the preview is laid out as the reader's
 * page is. Tabs switch as in the reader (content/tabsets.ts), keeping the tab chosen in each block as one types.
 */
export function LivePreview({ markdown, pagePath, pages, files, label }: { markdown: string; pagePath: string; pages: Record<string, string>; files: Record<string, RenderedFile>; label: string }) {
  const render = useRef(createSectionRenderer());
  const { parts } = useMemo(() => render.current({ markdown, pagePath, pages, files }), [markdown, pagePath, pages, files]);
  const { ref, onClick, onKeyDown } = useTabsets<HTMLElement>(parts);
  return (
    // The handlers act only on the tabs inside (buttons), delegated from here.
    <article ref={ref} className="page-content" aria-label={label} onClick={onClick} onKeyDown={onKeyDown}>
      {parts.map((part, index) => (
        <Section key={index} part={part} />
      ))}
    </article>
  );
}

const Section = memo(function Section({ part }: { part: RenderOutput }) {
  return <div className="preview-section" dangerouslySetInnerHTML={{ __html: part.html }} />;
});
