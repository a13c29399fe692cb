import { autocompletion, closeCompletion, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { BLOCKS, blankLineBefore } from './blocks.js';
import { pageLinks, slashCommands, type PageChoice } from './completions.js';

/*
 * CodeMirror 6: a text editor built for the browser's accessibility tree (its content is a labelled text box)
 * and for large documents (it draws only what is on screen), with Markdown highlighting. Tab is left to
 * focus movement unless Escape was not pressed first, as CodeMirror's indentWithTab documents.
 *
 * Blocks are inserted from a toolbar of labelled buttons or from the slash menu ("/" at the start of a line),
 * and a link's address completes to the space's pages; both use CodeMirror's own autocomplete, whose menu is
 * a listbox driven by the arrow keys, Enter and Escape. Files pasted or dropped are handed to `upload`, and
 * what it answers is inserted where they were pasted or dropped, however the text changed meanwhile.
 *
 * The editor lives in a shadow root: there CodeMirror's styles are constructed style sheets
 * (adoptedStyleSheets) instead of <style> elements, which the app's Content-Security-Policy (style-src 'self')
 * would refuse. The app's colours reach it through inherited custom properties.
 */

const theme = EditorView.theme({
  '&': { minHeight: '20rem', color: 'var(--fg)', backgroundColor: 'var(--bg)', fontSize: '0.95rem' },
  '&.cm-focused': { outline: '3px solid var(--accent)' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', lineHeight: '1.55' },
  '.cm-content': { caretColor: 'var(--fg)', padding: '0.5rem 0' },
  '.cm-line': { padding: '0 0.75rem' },
  '.cm-placeholder': { color: 'var(--fg-soft)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--fg)' },
  '.cm-tooltip': { backgroundColor: 'var(--bg)', color: 'var(--fg)', border: '1px solid var(--line)', borderRadius: '6px' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul': { fontFamily: 'system-ui, sans-serif', maxHeight: '16rem' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li': { padding: '0.2rem 0.6rem' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--accent-fg)' },
  '.cm-completionDetail': { color: 'inherit', opacity: '0.85', marginLeft: '0.75rem', fontStyle: 'normal' },
  '.cm-completionIcon': { display: 'none' },
});

/**
 * Markdown highlighting in the app's own colours (custom properties that change with the light and dark
 * themes, each at AA contrast), where CodeMirror's default style has fixed colours unreadable on dark.
 */
const highlight = HighlightStyle.define([
  { tag: tags.heading, fontWeight: '700', color: 'var(--accent)' },
  { tag: tags.strong, fontWeight: '700' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.strikethrough, textDecoration: 'line-through' },
  { tag: [tags.link, tags.url], color: 'var(--accent)', textDecoration: 'underline' },
  { tag: [tags.processingInstruction, tags.monospace, tags.quote, tags.contentSeparator, tags.meta], color: 'var(--fg-soft)' },
]);

/** The blocks offered as buttons; the slash menu offers all of BLOCKS. */
const TOOLBAR = ['Heading 2', 'Heading 3', 'Bulleted list', 'Numbered list', 'Table', 'Code block', 'Info hint', 'Warning hint', 'Tabs', 'Link to a page'];

export interface MarkdownEditorProps {
  /** The text the editor starts with; later changes of this prop replace the text (taking another version). */
  value: string;
  onChange: (text: string) => void;
  label: string;
  /** The space's pages, offered when completing a link's address. */
  pages: PageChoice[];
  /** Uploads one file; answers the Markdown that refers to it, or null when it failed (the caller says why). */
  upload: (file: File) => Promise<string | null>;
}

export default function MarkdownEditor({ value, onChange, label, pages, upload }: MarkdownEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const pagesRef = useRef(pages);
  pagesRef.current = pages;
  const uploadRef = useRef(upload);
  uploadRef.current = upload;
  // Where each upload under way is to be inserted, moved along as the text changes.
  const pendingAt = useRef(new Map<number, number>());

  async function uploadAt(files: File[], at: number) {
    for (const file of files) {
      const key = Math.random();
      pendingAt.current.set(key, at);
      const inserted = await uploadRef.current(file);
      const where = pendingAt.current.get(key)!;
      pendingAt.current.delete(key);
      const editor = view.current;
      if (inserted === null || !editor) continue;
      const text = blankLineBefore(editor, where) + inserted + '\n';
      editor.dispatch({ changes: { from: where, insert: text }, selection: { anchor: where + text.length }, userEvent: 'input' });
      at = where + text.length;
    }
  }

  useEffect(() => {
    const shadow = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: 'open' });
    const mount = document.createElement('div');
    shadow.replaceChildren(mount);
    const editor = new EditorView({
      root: shadow,
      parent: mount,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          // No delay before Enter may accept: the menu only opens on "/" or in a link's address, where Enter is meant for it.
          autocompletion({ override: [slashCommands, pageLinks(() => pagesRef.current)], icons: false, interactionDelay: 0 }),
          keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          markdown(),
          syntaxHighlighting(highlight),
          EditorView.lineWrapping,
          theme,
          placeholder('Write the page in Markdown… Type / for blocks.'),
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.domEventHandlers({
            paste(event, target) {
              const files = [...(event.clipboardData?.files ?? [])];
              if (files.length === 0) return false;
              event.preventDefault();
              void uploadAt(files, target.state.selection.main.head);
              return true;
            },
            drop(event, target) {
              const files = [...(event.dataTransfer?.files ?? [])];
              if (files.length === 0) return false;
              event.preventDefault();
              void uploadAt(files, target.posAtCoords({ x: event.clientX, y: event.clientY }) ?? target.state.selection.main.head);
              return true;
            },
          }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            for (const [key, at] of pendingAt.current) pendingAt.current.set(key, update.changes.mapPos(at));
            onChangeRef.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; `value` changes are applied below without losing history or focus.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [label]);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  const insert = (blockLabel: string) => {
    const editor = view.current;
    const block = BLOCKS.find((candidate) => candidate.label === blockLabel);
    if (!editor || !block) return;
    closeCompletion(editor);
    block.insert(editor);
  };

  return (
    <>
      <div className="editor-toolbar" role="group" aria-label="Insert">
        {TOOLBAR.map((blockLabel) => (
          <button key={blockLabel} type="button" className="small secondary" onClick={() => insert(blockLabel)}>
            {blockLabel}
          </button>
        ))}
        <button type="button" className="small secondary" onClick={() => fileInput.current?.click()}>
          Upload image or file
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          tabIndex={-1}
          aria-hidden="true"
          onChange={(event) => {
            const files = [...(event.target.files ?? [])];
            event.target.value = '';
            if (view.current) void uploadAt(files, view.current.state.selection.main.head);
          }}
        />
      </div>
      <div className="markdown-editor" ref={host} />
    </>
  );
}
