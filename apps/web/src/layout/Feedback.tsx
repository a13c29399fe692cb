import { errorMessage } from '../api/client.js';

export function Loading({ label }: { label: string }) {
  return (
    <p className="loading" role="status">
      {label}…
    </p>
  );
}

/** An error says what happened and what to do: the API's message, and a way back. */
export function ErrorNotice({ title, message, error }: { title: string; message?: string; error?: unknown }) {
  return (
    <div className="error" role="alert">
      <p className="error-title">{title}</p>
      <p>{message ?? errorMessage(error)}</p>
    </div>
  );
}
