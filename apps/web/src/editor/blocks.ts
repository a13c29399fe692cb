import { startCompletion } from '@codemirror/autocomplete';
import { EditorSelection } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';

/*
 * The blocks a page can hold, as the Markdown that @quire/render and the server's parser read: headings,
 * lists, tables, code, hints (GitBook's `{% hint style="…" %}` … `{% endhint %}`), tabs (GitBook's `{% tabs %}`
 * of `{% tab title="…" %}` … `{% endtab %}`), images and files (links to `/files/<id>`, inserted by
 * uploading), and links to other pages (`/pages/<id>`, stable across renames). One list serves the toolbar
 * and the slash menu.
 */

export interface Block {
  /** The button's label and the slash menu's entry. */
  label: string;
  /** What else the slash menu matches on. */
  keywords: string;
  /** Inserts the block at the selection (replacing `from`..`to` when given: the typed `/command`). */
  insert(view: EditorView, from?: number, to?: number): void;
}

/**
 * Puts `before` + (selected text or `fallback`) + `after` in place of the range, on a line of its own when
 * `block` is set, and selects the fallback text so typing replaces it.
 */
function wrap(view: EditorView, before: string, fallback: string, after: string, options: { block?: boolean; from?: number; to?: number } = {}) {
  const range = view.state.selection.main;
  const from = options.from ?? range.from;
  const to = options.to ?? range.to;
  const selected = options.from === undefined ? view.state.sliceDoc(from, to) : '';
  const inner = selected || fallback;
  const lead = options.block ? blankLineBefore(view, from) : '';
  const text = lead + before + inner + after;
  const start = from + lead.length + before.length;
  view.dispatch({
    changes: { from, to, insert: text },
    selection: EditorSelection.range(start, start + inner.length),
    scrollIntoView: true,
    userEvent: 'input',
  });
  view.focus();
}

/** What puts a block at `at` after a blank line, as Markdown needs to start a block after a paragraph. */
export function blankLineBefore(view: EditorView, at: number): string {
  const line = view.state.doc.lineAt(at);
  if (view.state.sliceDoc(line.from, at).trim() !== '') return '\n\n';
  if (line.number > 1 && view.state.doc.line(line.number - 1).text.trim() !== '') return '\n';
  return '';
}

const hint = (style: string, label: string): Block => ({
  label,
  keywords: `hint callout ${style}`,
  insert: (view, from, to) => wrap(view, `{% hint style="${style}" %}\n`, 'Text of the hint', '\n{% endhint %}\n', { block: true, from, to }),
});

export const BLOCKS: Block[] = [
  { label: 'Heading 1', keywords: 'h1 title', insert: (view, from, to) => wrap(view, '# ', 'Heading', '', { block: true, from, to }) },
  { label: 'Heading 2', keywords: 'h2 section', insert: (view, from, to) => wrap(view, '## ', 'Heading', '', { block: true, from, to }) },
  { label: 'Heading 3', keywords: 'h3 subsection', insert: (view, from, to) => wrap(view, '### ', 'Heading', '', { block: true, from, to }) },
  { label: 'Bulleted list', keywords: 'ul unordered bullet', insert: (view, from, to) => wrap(view, '- ', 'Item', '\n- Item\n', { block: true, from, to }) },
  { label: 'Numbered list', keywords: 'ol ordered', insert: (view, from, to) => wrap(view, '1. ', 'Item', '\n2. Item\n', { block: true, from, to }) },
  { label: 'Task list', keywords: 'todo checkbox', insert: (view, from, to) => wrap(view, '- [ ] ', 'Task', '\n- [ ] Task\n', { block: true, from, to }) },
  {
    label: 'Table',
    keywords: 'grid columns',
    insert: (view, from, to) => wrap(view, '| ', 'Column', ' | Column |\n| --- | --- |\n| Cell | Cell |\n', { block: true, from, to }),
  },
  { label: 'Code block', keywords: 'code snippet fence', insert: (view, from, to) => wrap(view, '```\n', 'code', '\n```\n', { block: true, from, to }) },
  { label: 'Quote', keywords: 'blockquote', insert: (view, from, to) => wrap(view, '> ', 'Quoted text', '', { block: true, from, to }) },
  hint('info', 'Info hint'),
  hint('warning', 'Warning hint'),
  hint('danger', 'Danger hint'),
  hint('success', 'Success hint'),
  {
    label: 'Tabs',
    keywords: 'tabs tabbed alternatives variants',
    // Two tabs, the first one's content selected to be typed over; titles are edited in their tags.
    insert: (view, from, to) =>
      wrap(
        view,
        '{% tabs %}\n{% tab title="First tab" %}\n',
        'Content of the first tab',
        '\n{% endtab %}\n\n{% tab title="Second tab" %}\nContent of the second tab\n{% endtab %}\n{% endtabs %}\n',
        { block: true, from, to },
      ),
  },
  {
    label: 'Link to a page',
    keywords: 'link page reference',
    insert: (view, from, to) => {
      wrap(view, '[', 'Link text', '](/pages/)', { from, to });
      // The caret goes into the address, where completion offers the space's pages.
      const at = view.state.selection.main.to + '](/pages/'.length;
      view.dispatch({ selection: { anchor: at } });
      startCompletion(view);
    },
  },
  { label: 'Divider', keywords: 'hr rule separator', insert: (view, from, to) => wrap(view, '---\n', '', '', { block: true, from, to }) },
];

/** The text a finished upload adds: an image shown in the page, any other file as a link to download it. */
export function fileMarkdown(file: { id: string; name: string; contentType?: string }): string {
  const label = file.name.replace(/[[\]\\]/g, '');
  return file.contentType?.startsWith('image/') ? `![${label}](/files/${file.id})` : `[${label}](/files/${file.id})`;
}
