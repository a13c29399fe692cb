import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { BLOCKS } from './blocks.js';

/*
 * Completion sources for CodeMirror's own autocomplete: "/" at the start of a line (or after a space) opens the
 * menu of blocks, and the address of a Markdown link (after `](`) offers the space's pages, written as their
 * stable `/pages/<id>` address. Both filter on what was typed themselves, since the typed text is a command
 * or an address while the entries show titles.
 */

export interface PageChoice {
  id: string;
  title: string;
  path: string;
}

const matches = (query: string, ...texts: string[]) => {
  const wanted = query.toLowerCase();
  return texts.some((text) => text.toLowerCase().includes(wanted));
};

export function slashCommands(context: CompletionContext): CompletionResult | null {
  const typed = context.matchBefore(/(?:^|\s)\/[\w-]*$/);
  if (!typed) return null;
  const slash = typed.text.indexOf('/');
  const from = typed.from + slash;
  const query = typed.text.slice(slash + 1);
  const options: Completion[] = BLOCKS.filter((block) => matches(query, block.label, block.keywords)).map((block) => ({
    label: block.label,
    type: 'keyword',
    apply: (view, _completion, applyFrom, to) => block.insert(view, applyFrom, to),
  }));
  if (options.length === 0) return null;
  return { from, options, filter: false };
}

export function pageLinks(pages: () => PageChoice[]) {
  return (context: CompletionContext): CompletionResult | null => {
    const typed = context.matchBefore(/\]\([^)\s]*$/);
    if (!typed) return null;
    const from = typed.from + 2;
    const query = typed.text.slice(2).replace(/^\/?(pages\/?)?/, '');
    const options: Completion[] = pages()
      .filter((page) => query === '' || matches(query, page.title, page.path, page.id))
      .slice(0, 50)
      .map((page) => ({
        label: page.title,
        detail: page.path,
        type: 'text',
        // The address, then the caret past the link's closing parenthesis, to write on.
        apply: (view, _completion, applyFrom, to) => {
          const address = `/pages/${page.id}`;
          const closing = view.state.sliceDoc(to, to + 1) === ')' ? 1 : 0;
          view.dispatch({ changes: { from: applyFrom, to, insert: address }, selection: { anchor: applyFrom + address.length + closing }, userEvent: 'input.complete' });
        },
      }));
    if (options.length === 0) return null;
    return { from, options, filter: false };
  };
}
