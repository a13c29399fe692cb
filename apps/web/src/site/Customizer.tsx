import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { api } from '../api/client.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { explain, customizationKey, sitePath, type Site, type SiteCustomization, type SiteRef } from './site-api.js';
import { ImageField } from './ImageField.js';
import { SitePreview } from './SitePreview.js';

/*
 * The site's look: title, logo, colours, header links, themes and footer, edited as a draft of the whole
 * customization (the API's PUT replaces it, so every key the form does not show is sent back as it was) and
 * saved at once; the preview shows the site as the reader renders it with the form's values, saved or not.
 */

type HeaderLink = NonNullable<NonNullable<SiteCustomization['header']>['links']>[number];
type ThemedColor = { light: string; dark: string };

const DEFAULT_PRIMARY: ThemedColor = { light: '#346DDB', dark: '#346DDB' };

/** `#36D` as `#3366DD`: the colour input takes six digits only. */
function sixDigits(color: string): string {
  return /^#[0-9a-fA-F]{3}$/.test(color) ? `#${[...color.slice(1)].map((digit) => digit + digit).join('')}` : color;
}

function ColorPair({ legend, value, onChange }: { legend: string; value: ThemedColor; onChange: (value: ThemedColor) => void }) {
  const id = useId();
  return (
    <fieldset className="color-pair">
      <legend>{legend}</legend>
      {(['light', 'dark'] as const).map((theme) => (
        <span key={theme} className="color-field">
          <label htmlFor={`${id}-${theme}`}>{theme === 'light' ? 'Light theme' : 'Dark theme'}</label>
          <input id={`${id}-${theme}`} type="color" value={sixDigits(value[theme])} onChange={(event) => onChange({ ...value, [theme]: event.target.value })} />
          <code>{value[theme]}</code>
        </span>
      ))}
    </fieldset>
  );
}

function HeaderLinks({ links, onChange }: { links: HeaderLink[]; onChange: (links: HeaderLink[]) => void }) {
  const id = useId();
  const set = (index: number, link: HeaderLink) => onChange(links.map((other, at) => (at === index ? link : other)));
  return (
    <fieldset>
      <legend>Header links</legend>
      {links.length === 0 ? <p className="help">No link in the header yet.</p> : null}
      <ol className="link-rows">
        {links.map((link, index) => {
          const url = link.to && link.to.kind === 'url' ? link.to.url : undefined;
          return (
            <li key={index} className="inline-form">
              <label htmlFor={`${id}-${index}-title`}>
                Link text<span className="site-sr-only"> {index + 1}</span>
              </label>
              <input id={`${id}-${index}-title`} value={link.title} maxLength={64} onChange={(event) => set(index, { ...link, title: event.target.value })} />
              {url !== undefined || !link.to ? (
                <>
                  <label htmlFor={`${id}-${index}-url`}>
                    Address<span className="site-sr-only"> of link {index + 1}</span>
                  </label>
                  <input id={`${id}-${index}-url`} type="url" value={url ?? ''} placeholder="https://" onChange={(event) => set(index, { ...link, to: { kind: 'url', url: event.target.value } })} />
                </>
              ) : (
                <span className="help">Goes to a {link.to.kind} of this organization</span>
              )}
              <button type="button" className="quiet" onClick={() => onChange(links.filter((_, at) => at !== index))}>
                Remove link<span className="site-sr-only"> {link.title || index + 1}</span>
              </button>
            </li>
          );
        })}
      </ol>
      <button type="button" className="secondary" disabled={links.length >= 20} onClick={() => onChange([...links, { title: '', to: { kind: 'url', url: '' } }])}>
        Add header link
      </button>
    </fieldset>
  );
}

/** The customization with empty fields dropped, as the API takes it (an empty logo or link would be a 400). */
function toRequest(draft: SiteCustomization): SiteCustomization {
  const out = structuredClone(draft);
  if (!out.title?.trim()) delete out.title;
  if (out.header) {
    const logo = out.header.logo;
    if (logo && !logo.light.trim()) delete out.header.logo;
    else if (logo && !logo.dark.trim()) out.header.logo = { light: logo.light, dark: logo.light };
  }
  return out;
}

function CustomizationForm({ site, siteRef, saved }: { site: Site; siteRef: SiteRef; saved: SiteCustomization }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<SiteCustomization>(() => structuredClone(saved));
  const save = useMutation({
    mutationFn: () => unwrap(api.PUT('/orgs/{organizationId}/sites/{siteId}/customization', { ...sitePath(siteRef), body: toRequest(draft) })),
    onSuccess: (answer) => {
      queryClient.setQueryData(customizationKey(siteRef), answer);
      setDraft(structuredClone(answer));
    },
  });
  const dirty = JSON.stringify(toRequest(draft)) !== JSON.stringify(toRequest(saved));
  const styling = draft.styling ?? {};
  const header = draft.header ?? {};
  const themes = draft.themes ?? {};
  const logo = header.logo ?? { light: '', dark: '' };
  const icon = draft.favicon && 'icon' in draft.favicon && draft.favicon.icon ? draft.favicon.icon.light : '';
  const update = (change: (next: SiteCustomization) => void) =>
    setDraft((current) => {
      const next = structuredClone(current);
      change(next);
      return next;
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <div className="customizer">
      <form className="site-form" onSubmit={submit} aria-label="Customization">
        <label htmlFor={`${id}-title`}>Title in the header</label>
        <input id={`${id}-title`} value={draft.title ?? ''} maxLength={128} placeholder={site.title} onChange={(event) => update((next) => void (next.title = event.target.value))} aria-describedby={`${id}-title-help`} />
        <p id={`${id}-title-help`} className="help">
          Empty: the site's title, “{site.title}”.
        </p>
        <fieldset>
          <legend>Logo</legend>
          <p className="help">An image's address (https://…), or upload one; empty for the title alone. The dark theme uses the light one when left empty.</p>
          <ImageField addressLabel="Logo address, light theme" uploadLabel="Upload logo, light theme" value={logo.light} siteRef={siteRef} onChange={(light) => update((next) => void (next.header = { ...header, logo: { ...logo, light } }))} />
          <ImageField addressLabel="Logo address, dark theme" uploadLabel="Upload logo, dark theme" value={logo.dark} siteRef={siteRef} onChange={(dark) => update((next) => void (next.header = { ...header, logo: { ...logo, dark } }))} />
        </fieldset>
        <fieldset>
          <legend>Icon</legend>
          <p className="help">Shown in readers' browser tabs; empty for Quire's own.</p>
          <ImageField addressLabel="Icon address" uploadLabel="Upload icon" value={icon} siteRef={siteRef} onChange={(light) => update((next) => void (next.favicon = light ? { icon: { light, dark: light } } : {}))} />
        </fieldset>
        <ColorPair legend="Primary colour" value={styling.primaryColor ?? DEFAULT_PRIMARY} onChange={(primaryColor) => update((next) => void (next.styling = { ...styling, primaryColor }))} />
        <label className="check">
          <input
            type="checkbox"
            checked={styling.tint !== undefined}
            onChange={(event) =>
              update((next) => {
                const { tint: _tint, ...rest } = styling;
                next.styling = event.target.checked ? { ...rest, tint: { color: styling.primaryColor ?? DEFAULT_PRIMARY } } : rest;
              })
            }
          />
          Tint the backgrounds
        </label>
        {styling.tint ? <ColorPair legend="Tint colour" value={styling.tint.color} onChange={(color) => update((next) => void (next.styling = { ...styling, tint: { color } }))} /> : null}
        <HeaderLinks links={header.links ?? []} onChange={(links) => update((next) => void (next.header = { ...header, links }))} />
        <fieldset>
          <legend>Themes</legend>
          <label htmlFor={`${id}-theme`}>Default theme</label>
          <select id={`${id}-theme`} value={themes.default ?? 'light'} onChange={(event) => update((next) => void (next.themes = { ...themes, default: event.target.value as 'light' | 'dark' }))}>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
          <label className="check">
            <input type="checkbox" checked={themes.toggeable ?? true} onChange={(event) => update((next) => void (next.themes = { ...themes, toggeable: event.target.checked }))} />
            Readers can switch between light and dark
          </label>
        </fieldset>
        <label htmlFor={`${id}-copyright`}>Footer copyright</label>
        <input id={`${id}-copyright`} value={draft.footer?.copyright ?? ''} maxLength={300} onChange={(event) => update((next) => void (next.footer = { ...next.footer, copyright: event.target.value }))} />
        <div className="actions">
          <button type="submit" disabled={save.isPending || !dirty}>
            {save.isPending ? 'Saving…' : 'Save customization'}
          </button>
          <button type="button" className="secondary" disabled={save.isPending || !dirty} onClick={() => {
              save.reset();
              setDraft(structuredClone(saved));
            }}>
            Discard changes
          </button>
          {dirty ? <span className="help">Unsaved changes: readers still see the saved look.</span> : null}
        </div>
        {save.isSuccess && !dirty ? <p role="status">Customization saved: readers see it now.</p> : null}
        {save.isError ? <ErrorNotice title="The customization was not saved" message={explain(save.error, 'Your changes are still in the form; correct them and save again.')} /> : null}
      </form>
      <SitePreview site={site} siteRef={siteRef} draft={toRequest(draft)} />
    </div>
  );
}

export function Customizer({ site, siteRef }: { site: Site; siteRef: SiteRef }) {
  const id = useId();
  const customization = useQuery({
    queryKey: customizationKey(siteRef),
    queryFn: () => unwrap(api.GET('/orgs/{organizationId}/sites/{siteId}/customization', sitePath(siteRef))),
    staleTime: Infinity,
  });
  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Customization</h2>
      {customization.isPending ? <Loading label="Loading the customization" /> : null}
      {customization.isError ? <ErrorNotice title="The customization could not be loaded" error={customization.error} /> : null}
      {customization.data ? <CustomizationForm site={site} siteRef={siteRef} saved={customization.data} /> : null}
    </section>
  );
}
