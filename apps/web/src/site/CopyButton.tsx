import { useState } from 'react';

/** Copies a text to the clipboard and says so; when the browser refuses, says how to copy it by hand. */
export function CopyButton({ text, label, what }: { text: string; label: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" className="secondary" onClick={() => void copy()}>
        {label}
        <span className="site-sr-only"> {what}</span>
      </button>
      <span role="status" className="help">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'The browser did not allow copying: select the text and press Ctrl+C.' : ''}
      </span>
    </>
  );
}
