import { useState } from 'react';

/** Where a specification's document comes from: a file from this computer (sent as text) or a URL the server fetches. */
export type SourceChoice = { kind: 'file'; file: File | undefined } | { kind: 'url'; url: string };

export async function sourceBody(choice: SourceChoice): Promise<{ text: string } | { url: string }> {
  if (choice.kind === 'url') return { url: choice.url.trim() };
  if (!choice.file) throw new Error('Choose the file of the OpenAPI document.');
  const text = await choice.file.text();
  if (text.trim() === '') throw new Error('This file is empty: choose the file of the OpenAPI document.');
  return { text };
}

export function isSourceReady(choice: SourceChoice): boolean {
  return choice.kind === 'url' ? choice.url.trim() !== '' : choice.file !== undefined;
}

/** The two ways, as radio buttons, and the field of the chosen one. `idPrefix` keeps ids unique on a page. */
export function OpenApiSourceFields({ idPrefix, onChange }: { idPrefix: string; onChange: (choice: SourceChoice) => void }) {
  const [kind, setKind] = useState<'file' | 'url'>('file');
  const [file, setFile] = useState<File>();
  const [url, setUrl] = useState('');
  const choose = (next: 'file' | 'url') => {
    setKind(next);
    onChange(next === 'file' ? { kind: 'file', file } : { kind: 'url', url });
  };
  return (
    <fieldset className="source-fields">
      <legend>Source of the document</legend>
      <div className="field-row">
        <label className="check">
          <input type="radio" name={`${idPrefix}-source`} checked={kind === 'file'} onChange={() => choose('file')} />
          A file from this computer
        </label>
        <label className="check">
          <input type="radio" name={`${idPrefix}-source`} checked={kind === 'url'} onChange={() => choose('url')} />
          A URL that Quire fetches
        </label>
      </div>
      {kind === 'file' ? (
        <div className="field-row">
          <label htmlFor={`${idPrefix}-file`}>OpenAPI file (JSON or YAML)</label>
          <input
            id={`${idPrefix}-file`}
            type="file"
            accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
            onChange={(event) => {
              const chosen = event.target.files?.[0];
              setFile(chosen);
              onChange({ kind: 'file', file: chosen });
            }}
          />
        </div>
      ) : (
        <div className="field-row">
          <label htmlFor={`${idPrefix}-url`}>Document URL</label>
          <input
            id={`${idPrefix}-url`}
            type="url"
            required
            placeholder="https://example.com/openapi.yaml"
            value={url}
            onChange={(event) => {
              setUrl(event.target.value);
              onChange({ kind: 'url', url: event.target.value });
            }}
          />
        </div>
      )}
    </fieldset>
  );
}
