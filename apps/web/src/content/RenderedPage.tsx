import { renderMarkdown } from '@quire/render';
import { useMemo } from 'react';

/*
 * Page Markdown rendered by @quire/render, the reader's own renderer: raw HTML in the content is dropped and
 * the result sanitized (no script, event handler or javascript: URL can come from what a writer typed), which
 * is why its HTML may be set as is.
 */
export function RenderedPage({ markdown, pagePath, pages, label }: { markdown: string; pagePath: string; pages: Record<string, string>; label: string }) {
  const html = useMemo(() => renderMarkdown({ markdown, pagePath, pages, files: {} }).html, [markdown, pagePath, pages]);
  return <article className="page-content" aria-label={label} dangerouslySetInnerHTML={{ __html: html }} />;
}
