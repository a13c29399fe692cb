import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useDeferredValue, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../api/client.js';
import { Loading } from '../layout/Feedback.js';
import { savePage, type PageRef, type PageVersion } from './autosave.js';
import type { PageChoice } from './completions.js';
import { LivePreview } from './LivePreview.js';
import { formatBytes, refusal, uploadFile, useChangeRequestFiles } from './uploads.js';

const MarkdownEditor = lazy(() => import('./MarkdownEditor.js'));

/** Quiet time after the last keystroke before the page is saved. */
const SAVE_DELAY_MS = 700;

type Status = { kind: 'saved' } | { kind: 'pending' } | { kind: 'saving' } | { kind: 'conflict'; theirs: PageVersion } | { kind: 'failed'; message: string };

/** An upload as the writer sees it: under way (with how far), done, or failed with the reason. */
type Upload = { id: number; name: string; size: number; state: 'uploading'; progress: number } | { id: number; name: string; size: number; state: 'done' } | { id: number; name: string; size: number; state: 'failed'; message: string };

const NO_FILES = {};

const STATUS_TEXT: Record<Status['kind'], string> = {
  saved: 'All changes saved',
  pending: 'Unsaved changes',
  saving: 'Saving…',
  conflict: 'Not saved: this page was changed elsewhere',
  failed: 'Not saved',
};

export function PageEditor({ pageRef, initial, pagePath, pages, choices, title, readOnly }: { pageRef: PageRef; initial: PageVersion; pagePath: string; pages: Record<string, string>; choices: PageChoice[]; title: string; readOnly: boolean }) {
  const [text, setText] = useState(initial.markdown);
  // What the editor is given: the text it starts with, or a version taken from elsewhere.
  const [shown, setShown] = useState(initial.markdown);
  const [status, setStatus] = useState<Status>({ kind: 'saved' });
  // The version every save is conditional on: what this editor started from, then what it last saved.
  const base = useRef<PageVersion>(initial);
  const latest = useRef(initial.markdown);
  const saving = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const queryClient = useQueryClient();
  const preview = useDeferredValue(text);
  const files = useChangeRequestFiles(pageRef);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const uploadIds = useRef(0);

  const upload = useCallback(
    async (file: File): Promise<string | null> => {
      const id = ++uploadIds.current;
      const common = { id, name: file.name, size: file.size };
      const set = (next: Upload) => setUploads((all) => [...all.filter((entry) => entry.id !== id), next].slice(-4));
      const refused = refusal(file);
      if (refused) {
        set({ ...common, state: 'failed', message: refused });
        return null;
      }
      set({ ...common, state: 'uploading', progress: 0 });
      try {
        const markdown = await uploadFile(pageRef, file, (progress) => set({ ...common, state: 'uploading', progress }));
        set({ ...common, state: 'done' });
        void queryClient.invalidateQueries({ queryKey: ['space', pageRef.spaceId, 'change-request', pageRef.changeRequestId, 'files'] });
        return markdown;
      } catch (error) {
        set({ ...common, state: 'failed', message: `“${file.name}” was not uploaded: ${errorMessage(error)}` });
        return null;
      }
    },
    [pageRef, queryClient],
  );

  const save = useCallback(async () => {
    if (saving.current) return;
    saving.current = true;
    const sent = latest.current;
    setStatus({ kind: 'saving' });
    try {
      const outcome = await savePage(pageRef, base.current, sent);
      if (outcome.kind === 'conflict') {
        setStatus({ kind: 'conflict', theirs: outcome.theirs });
        return;
      }
      base.current = outcome.stored;
      void queryClient.invalidateQueries({ queryKey: ['space', pageRef.spaceId, 'change-request', pageRef.changeRequestId] });
      if (latest.current !== sent) setStatus({ kind: 'pending' });
      else setStatus({ kind: 'saved' });
    } catch (error) {
      setStatus({ kind: 'failed', message: errorMessage(error) });
    } finally {
      saving.current = false;
    }
  }, [pageRef, queryClient]);

  // Typing during a save leaves the status `pending`: the next quiet moment saves again.
  useEffect(() => {
    if (status.kind !== 'pending') return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void save(), SAVE_DELAY_MS);
    return () => clearTimeout(timer.current);
  }, [status, text, save]);

  const onChange = useCallback((next: string) => {
    latest.current = next;
    setText(next);
    setStatus((current) => (current.kind === 'conflict' ? current : { kind: 'pending' }));
  }, []);

  const keepMine = () => {
    if (status.kind !== 'conflict') return;
    base.current = status.theirs;
    setStatus({ kind: 'pending' });
  };
  const takeTheirs = () => {
    if (status.kind !== 'conflict') return;
    base.current = status.theirs;
    latest.current = status.theirs.markdown;
    setText(status.theirs.markdown);
    setShown(status.theirs.markdown);
    setStatus({ kind: 'saved' });
  };

  return (
    <div className="page-editor">
      {readOnly ? null : (
        <p className={`save-status save-${status.kind}`} role="status" aria-live="polite">
          {STATUS_TEXT[status.kind]}
          {status.kind === 'failed' ? `: ${status.message}` : null}
        </p>
      )}
      {status.kind === 'conflict' ? (
        <div className="conflict" role="alert">
          <p>
            Someone saved another version of “{title}” while you were writing. Nothing of yours was lost and nothing of theirs was
            overwritten. Compare, then choose.
          </p>
          <details open>
            <summary>Their version</summary>
            <pre className="their-version">{status.theirs.markdown}</pre>
          </details>
          <div className="actions">
            <button type="button" onClick={keepMine}>
              Keep my version
            </button>
            <button type="button" className="secondary" onClick={takeTheirs}>
              Use their version
            </button>
          </div>
        </div>
      ) : null}
      {uploads.length > 0 ? (
        <div className="uploads">
          {uploads.map((entry) => (
            <p key={entry.id} className={`upload-status upload-${entry.state}`} role={entry.state === 'failed' ? 'alert' : 'status'}>
              {entry.state === 'uploading' ? (
                <>
                  Uploading “{entry.name}” ({formatBytes(entry.size)})…
                  <progress max={1} value={entry.progress} aria-label={`Upload of ${entry.name}`} />
                </>
              ) : entry.state === 'done' ? (
                `“${entry.name}” uploaded.`
              ) : (
                entry.message
              )}
            </p>
          ))}
        </div>
      ) : null}
      <div className="editor-panes">
        <div className="pane">
          <h3 className="pane-title">Markdown</h3>
          {readOnly ? (
            <pre className="readonly-markdown">{text}</pre>
          ) : (
            <Suspense fallback={<Loading label="Loading the editor" />}>
              <MarkdownEditor value={shown} onChange={onChange} label="Page content" pages={choices} upload={upload} />
            </Suspense>
          )}
        </div>
        <div className="pane">
          <h3 className="pane-title">Preview</h3>
          <LivePreview markdown={preview} pagePath={pagePath} pages={pages} files={files.data ?? NO_FILES} label={`Preview of ${title}`} />
        </div>
      </div>
    </div>
  );
}
