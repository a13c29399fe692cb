import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A confirmation asked in the page, where the action was chosen (no dialog box): the question, the button that
 * does it, and one that takes it back. Focus goes to the question's button, and back to the caller's on cancel.
 */
export function ConfirmInline({ question, confirmLabel, onConfirm, onCancel, busy }: { question: ReactNode; confirmLabel: string; onConfirm: () => void; onCancel: () => void; busy: boolean }) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  return (
    <div className="confirm" role="group" aria-label="Confirmation">
      <p>{question}</p>
      <button ref={confirm} type="button" className="danger" disabled={busy} onClick={onConfirm}>
        {confirmLabel}
      </button>
      <button type="button" className="secondary" disabled={busy} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
