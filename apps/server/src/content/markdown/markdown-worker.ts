import { ContentError } from '../errors.js';
import { parseMarkdownWithinLimits } from './limits.js';
import { findLinkDestinations, type LinkDestination } from './links.js';

/*
 * The worker-thread side of markdown-pool.ts: markdown about to be stored, checked against the content
 * limits and parsed for its link destinations, where the parse (seconds for a large page) cannot stall the
 * requests the server is answering. A refusal comes back as its message: error classes do not cross threads.
 */

export interface CheckMarkdownTask {
  markdown: string;
  /** Names the content in a refusal, e.g. `document.markdown`. */
  what: string;
}

export type CheckMarkdownResult = { links: LinkDestination[] } | { refused: string };

export default function checkMarkdownTask(task: CheckMarkdownTask): CheckMarkdownResult {
  try {
    return { links: findLinkDestinations(task.markdown, parseMarkdownWithinLimits(task.markdown, task.what)) };
  } catch (error) {
    if (error instanceof ContentError) return { refused: error.message };
    throw error;
  }
}
