import { ContentError } from '../errors.js';
import { referencePages, type ReferencePagesResult } from '../openapi-reference.js';
import { markdownLimitBreach, parseMarkdownWithinLimits, treeDepth } from './limits.js';
import { parseMarkdownQuickly } from './syntax.js';
import { extractReferences, findLinkDestinations, type ExtractedReferences, type LinkDestination } from './links.js';
import type { Doc } from './document.js';
import { markdownToDocument } from './to-document.js';
import { extractSections, type MarkdownSection } from './sections.js';

/*
 * The worker-thread side of markdown-pool.ts: large markdown parsed where the parse (seconds for a large
 * page) cannot stall the requests the server is answering. Markdown about to be stored is checked against
 * the content limits and parsed for its link destinations; markdown to index is cut into its search
 * sections; an OpenAPI document becomes the `openapi-reference` template's pages. A refusal comes back as its message: error classes do not cross threads.
 */

export interface CheckMarkdownTask {
  kind?: 'check';
  markdown: string;
  /** Names the content in a refusal, e.g. `document.markdown`. */
  what: string;
}

export interface SectionsTask {
  kind: 'sections';
  markdown: string;
}

/** The pages of the `openapi-reference` template from an OpenAPI document's text (`referencePages`). */
export interface ReferencePagesTask {
  kind: 'openapi-reference';
  text: string;
  fileName: string;
}

/** The document of stored markdown (`markdownToDocument`); page ids by path resolve links by path. */
export interface DocumentTask {
  kind: 'document';
  markdown: string;
  pagePath?: string;
  pageIds?: Map<string, string>;
  what: string;
}

/** The references of stored markdown (`extractReferences`). */
export interface ReferencesTask {
  kind: 'references';
  markdown: string;
  pagePath?: string;
}

/** The link destinations of many markdown texts (`findLinkDestinations`); null for text past the limits. */
export interface LinkDestinationsTask {
  kind: 'link-destinations';
  markdowns: string[];
}

/** The link destinations of many texts with the depth of each parse tree (`linkDestinationsAndDepthsOf`). */
export interface LinksAndDepthsTask {
  kind: 'links-and-depths';
  markdowns: string[];
}

/** Many texts about to be stored, each checked against the content limits (`parseMarkdownWithinLimits`). */
export interface LimitBreachesTask {
  kind: 'limit-breaches';
  texts: Array<{ markdown: string; what: string }>;
}

export type MarkdownTask =
  | CheckMarkdownTask
  | SectionsTask
  | ReferencePagesTask
  | DocumentTask
  | ReferencesTask
  | LinkDestinationsTask
  | LinksAndDepthsTask
  | LimitBreachesTask;

/** For each text, the message of the content limit it passes, or null. */
export function limitBreachesOf(texts: ReadonlyArray<{ markdown: string; what: string }>): Array<string | null> {
  return texts.map(({ markdown, what }) => {
    try {
      parseMarkdownWithinLimits(markdown, what);
      return null;
    } catch (error) {
      if (error instanceof ContentError) return error.message;
      throw error;
    }
  });
}

/** What `rewriteLinks` parses, for each text: its destinations, or null when it is past the limits and left as it is. */
export function linkDestinationsOf(markdowns: readonly string[]): Array<LinkDestination[] | null> {
  return markdowns.map((markdown) => (markdownLimitBreach(markdown) !== undefined ? null : findLinkDestinations(markdown)));
}

/**
 * What one parse of a text tells: its link destinations (as `linkDestinationsOf`) and the depth of its tree
 * (`treeDepth`, what the content limits measure), so that a text stored as read, or with destinations
 * changed in a way that keeps its tree's shape, is not parsed a second time to be checked. Text past the
 * limits that need no parse (`markdownLimitBreach`) is not parsed: null.
 */
export type LinksAndDepth = { destinations: LinkDestination[]; depth: number } | null;

export function linkDestinationsAndDepthsOf(markdowns: readonly string[]): LinksAndDepth[] {
  return markdowns.map((markdown) => {
    if (markdownLimitBreach(markdown) !== undefined) return null;
    const tree = parseMarkdownQuickly(markdown);
    return { destinations: findLinkDestinations(markdown, tree), depth: treeDepth(tree) };
  });
}

export type DocumentResult = { document: Doc } | { refused: string };

export type CheckMarkdownResult = { links: LinkDestination[] } | { refused: string };

export default function markdownTask(
  task: MarkdownTask,
):
  | CheckMarkdownResult
  | MarkdownSection[]
  | ReferencePagesResult
  | DocumentResult
  | ExtractedReferences
  | Array<LinkDestination[] | null>
  | LinksAndDepth[]
  | Array<string | null> {
  if (task.kind === 'link-destinations') return linkDestinationsOf(task.markdowns);
  if (task.kind === 'links-and-depths') return linkDestinationsAndDepthsOf(task.markdowns);
  if (task.kind === 'limit-breaches') return limitBreachesOf(task.texts);
  if (task.kind === 'sections') return extractSections(task.markdown);
  if (task.kind === 'openapi-reference') return referencePages(task.text, task.fileName);
  if (task.kind === 'references') return extractReferences(task.markdown, task.pagePath !== undefined ? { pagePath: task.pagePath } : {});
  if (task.kind === 'document') {
    try {
      const { pageIds } = task;
      return {
        document: markdownToDocument(task.markdown, {
          ...(task.pagePath !== undefined ? { pagePath: task.pagePath } : {}),
          resolvePagePath: (path) => pageIds?.get(path),
          what: task.what,
        }),
      };
    } catch (error) {
      if (error instanceof ContentError) return { refused: error.message };
      throw error;
    }
  }
  try {
    return { links: findLinkDestinations(task.markdown, parseMarkdownWithinLimits(task.markdown, task.what)) };
  } catch (error) {
    if (error instanceof ContentError) return { refused: error.message };
    throw error;
  }
}
