import { GUEST, ROLES, optionFromRole, roleFromOption, type RoleOrGuest } from './roles.js';

/**
 * A role picker. Its accessible name comes from visible text: a `<label>` (`id` given to it by the caller) or
 * the ids in `labelledBy` (a table's column header and the row's name), so what one hears is what one sees.
 */
export function RoleSelect({
  id,
  labelledBy,
  value,
  onChange,
  withGuest = false,
  disabled = false,
}: {
  id?: string;
  labelledBy?: string;
  value: RoleOrGuest;
  onChange: (role: RoleOrGuest) => void;
  withGuest?: boolean;
  disabled?: boolean;
}) {
  return (
    <select id={id} aria-labelledby={labelledBy} value={optionFromRole(value)} disabled={disabled} onChange={(event) => onChange(roleFromOption(event.target.value))}>
      {ROLES.map((role) => (
        <option key={role.value} value={role.value}>
          {role.label}
        </option>
      ))}
      {withGuest ? <option value={GUEST}>Guest</option> : null}
    </select>
  );
}
