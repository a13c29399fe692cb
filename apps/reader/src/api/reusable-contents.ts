import type { QuireClient } from '@quire/client';
import { ApiFailure, data } from './api-failure.js';

/*
 * Reusable contents inserted in a page. A page's Markdown inserts one with a paragraph of its own holding
 * `{% include "/reusable-contents/<id>" %}` (the server's content model, documented in its contract); the
 * reader replaces that paragraph with the reusable content's Markdown before rendering, so an inserted block
 * renders like the page's own text. Inserted bodies are not expanded again: one level, so that two reusable
 * contents that insert each other cannot loop.
 */

const INCLUDE_LINE = /^[ \t]{0,3}\{%\s*include\s+"\/reusable-contents\/([A-Za-z0-9_-]{1,128})"\s*%\}[ \t]*$/;

/** The ids the markdown inserts, in order, each once. */
export function insertedIds(markdown: string): string[] {
  if (!markdown.includes('/reusable-contents/')) return [];
  const ids = new Set<string>();
  for (const line of markdown.split('\n')) {
    const id = INCLUDE_LINE.exec(line)?.[1];
    if (id !== undefined) ids.add(id);
  }
  return [...ids];
}

/**
 * The markdown with each include line replaced by the body of its reusable content (`bodies`, by id); an id
 * without a body (missing from the revision) is left out, as a reader has nothing to show for it. Lines in
 * fenced code blocks are kept as written.
 */
export function expandIncludes(markdown: string, bodies: ReadonlyMap<string, string | undefined>): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const fenceMark = /^[ \t]{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fenceMark && (fence === undefined || (fenceMark[0] === fence[0] && fenceMark.length >= fence.length))) {
        fence = fence === undefined ? fenceMark : undefined;
        return line;
      }
      if (fence !== undefined) return line;
      const id = INCLUDE_LINE.exec(line)?.[1];
      return id === undefined ? line : (bodies.get(id) ?? '').replace(/\n+$/, '');
    })
    .join('\n');
}

/** A reusable content's Markdown, read with the visitor's client; undefined when the revision has none of that id. */
export async function readReusableMarkdown(client: QuireClient, spaceId: string, reusableContentId: string): Promise<string | undefined> {
  try {
    const found = await data(client.GET('/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', { params: { path: { spaceId, reusableContentId } } }));
    return found.markdown ?? '';
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 404) return undefined;
    throw error;
  }
}
