import { useRef, useState } from 'react';

/**
 * A secret address shown once, to copy: a read-only text box (its label names it) and a copy button. When the
 * browser refuses the clipboard, the text is selected for the person to copy by hand.
 */
export function CopyField({ id, label, value, copyLabel }: { id: string; label: string; value: string; copyLabel: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copied to the clipboard.');
    } catch {
      input.current?.select();
      setSaid('The browser did not allow copying: the address is selected, copy it with Ctrl+C (⌘C on a Mac).');
    }
  };
  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="field-row">
        <input ref={input} id={id} readOnly value={value} onFocus={(event) => event.target.select()} />
        <button type="button" className="secondary" onClick={() => void copy()}>
          {copyLabel}
        </button>
      </div>
      <p role="status" className="status-line">
        {said}
      </p>
    </div>
  );
}
