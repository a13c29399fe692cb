import type { ReactNode } from 'react';

/**
 * A button in a row of an admin table, named by its own words and the row's name ("Revoke ada@example.com"),
 * so that a screen reader going through the buttons alone knows which row each one acts on.
 */
export function RowAction({ id, rowNameId, disabled, onClick, children }: { id: string; rowNameId: string; disabled: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <button id={id} type="button" className="secondary" aria-labelledby={`${id} ${rowNameId}`} disabled={disabled} onClick={onClick}>
      {children}
    </button>
  );
}
