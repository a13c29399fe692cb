import { VISIBILITIES, type SiteVisibility } from './site-api.js';

/** "Who can read it": a site's visibility, each choice said to a person. */
export function VisibilitySelect({ id, value, onChange }: { id: string; value: SiteVisibility; onChange: (visibility: SiteVisibility) => void }) {
  return (
    <>
      <label htmlFor={id}>Who can read it</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as SiteVisibility)}>
        {VISIBILITIES.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </>
  );
}
