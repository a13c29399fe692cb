import type { components } from '@quire/api-types';
import { RoleSelect } from './RoleSelect.js';
import type { RoleOrGuest } from './roles.js';

type Team = components['schemas']['Team'];

/** What an admin types about an identity provider: the same fields to create one and to edit it. */
export interface SamlFields {
  label: string;
  ssoURL: string;
  entityID: string;
  certificate: string;
  defaultRole: RoleOrGuest;
  defaultTeam: string;
}

export const EMPTY_SAML_FIELDS: SamlFields = { label: '', ssoURL: '', entityID: '', certificate: '', defaultRole: 'read', defaultTeam: '' };

export function SamlProviderFields({ idPrefix, value, teams, onChange }: { idPrefix: string; value: SamlFields; teams: Team[]; onChange: (next: SamlFields) => void }) {
  const set = <K extends keyof SamlFields>(key: K, next: SamlFields[K]) => onChange({ ...value, [key]: next });
  return (
    <>
      <div className="field-row">
        <label htmlFor={`${idPrefix}-label`}>Name on the sign-in page</label>
        <input id={`${idPrefix}-label`} required maxLength={30} value={value.label} onChange={(event) => set('label', event.target.value)} />
      </div>
      <label htmlFor={`${idPrefix}-sso`}>Identity provider's sign-on URL</label>
      <input id={`${idPrefix}-sso`} className="wide" type="url" required value={value.ssoURL} onChange={(event) => set('ssoURL', event.target.value)} />
      <label htmlFor={`${idPrefix}-entity`}>Identity provider's entity ID</label>
      <input id={`${idPrefix}-entity`} className="wide" maxLength={1024} value={value.entityID} onChange={(event) => set('entityID', event.target.value)} />
      <label htmlFor={`${idPrefix}-certificate`}>Identity provider's signing certificate (PEM)</label>
      <textarea id={`${idPrefix}-certificate`} className="wide monospace" rows={5} maxLength={10000} value={value.certificate} onChange={(event) => set('certificate', event.target.value)} />
      <div className="field-row">
        <label htmlFor={`${idPrefix}-role`}>Role of people who join through it</label>
        <RoleSelect id={`${idPrefix}-role`} value={value.defaultRole} withGuest onChange={(role) => set('defaultRole', role)} />
        <label htmlFor={`${idPrefix}-team`}>Team they join</label>
        <select id={`${idPrefix}-team`} value={value.defaultTeam} onChange={(event) => set('defaultTeam', event.target.value)}>
          <option value="">No team</option>
          {teams.map((team) => (
            <option key={team.id} value={team.id}>
              {team.title}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}

/** The body of a create or an update: empty optional fields are left out. */
export function samlBody(fields: SamlFields) {
  return {
    label: fields.label.trim(),
    ssoURL: fields.ssoURL.trim(),
    ...(fields.entityID.trim() ? { entityID: fields.entityID.trim() } : {}),
    ...(fields.certificate.trim() ? { certificate: fields.certificate.trim() } : {}),
    defaultRole: fields.defaultRole,
    ...(fields.defaultTeam ? { defaultTeam: fields.defaultTeam } : {}),
  };
}
