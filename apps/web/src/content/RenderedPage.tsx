import { renderMarkdown } from '@quire/render';
import { useMemo } from 'react';
import { useTabsets } from './tabsets.js';

/*
 * Page Markdown rendered by @quire/render, the reader's own renderer: raw HTML in the content is dropped and
 * the result sanitized (no script, event handler or javascript: URL can come from what a writer typed), which
 * is why its HTML may be set as is. Its tabs switch as in the reader (tabsets.ts).
 */
export function RenderedPage({ markdown, pagePath, pages, label }: { markdown: string; pagePath: string; pages: Record<string, string>; label: string }) {
  const html = useMemo(() => renderMarkdown({ markdown, pagePath, pages, files: {} }).html, [markdown, pagePath, pages]);
  const { ref, onClick, onKeyDown } = useTabsets<HTMLElement>(html);
  // The handlers act only on the tabs inside (buttons), delegated from here.
  return <article ref={ref} className="page-content" aria-label={label} onClick={onClick} onKeyDown={onKeyDown} dangerouslySetInnerHTML={{ __html: html }} />;
}
