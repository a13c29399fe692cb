import { useId, useState, type ChangeEvent } from 'react';
import { errorMessage } from '../api/client.js';
import type { SiteRef } from './site-api.js';
import { imageRefusal, SITE_IMAGE_TYPES, uploadSiteImage } from './image-upload.js';

/** An image of the customization (a logo, the icon): its address, typed or set by uploading a file. */
export function ImageField({ addressLabel, uploadLabel, value, onChange, siteRef }: { addressLabel: string; uploadLabel: string; value: string; onChange: (url: string) => void; siteRef: SiteRef }) {
  const id = useId();
  const [state, setState] = useState<{ busy: boolean; error?: string; done?: string }>({ busy: false });
  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    const refusal = imageRefusal(file);
    if (refusal) return setState({ busy: false, error: refusal });
    setState({ busy: true });
    try {
      onChange(await uploadSiteImage(siteRef, file));
      setState({ busy: false, done: `“${file.name}” uploaded; its address is set above (readers see it once the customization is saved).` });
    } catch (error) {
      setState({ busy: false, error: `“${file.name}” was not uploaded: ${errorMessage(error)}` });
    }
  };
  return (
    <div className="image-field">
      <label htmlFor={`${id}-url`}>{addressLabel}</label>
      <input id={`${id}-url`} type="url" value={value} placeholder="https://" onChange={(event) => onChange(event.target.value)} />
      <label htmlFor={`${id}-file`}>{uploadLabel}</label>
      <input id={`${id}-file`} type="file" accept={SITE_IMAGE_TYPES.join(',')} disabled={state.busy} onChange={(event) => void choose(event)} aria-describedby={`${id}-help`} />
      <p id={`${id}-help`} className="help">PNG, JPEG, GIF or WebP, up to 1 MB and 4096 pixels a side.</p>
      {state.busy ? <p role="status">Uploading…</p> : null}
      {state.done ? <p role="status">{state.done}</p> : null}
      {state.error ? <p role="alert" className="error">{state.error}</p> : null}
    </div>
  );
}
