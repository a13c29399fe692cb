import type { components } from '@quire/api-types';

/** The roles as people read them, strongest first, and the guest (no organization-wide role). */

export type Role = components['schemas']['MemberRole'];
export type RoleOrGuest = Role | null;

export const ROLES: ReadonlyArray<{ value: Role; label: string }> = [
  { value: 'admin', label: 'Admin' },
  { value: 'create', label: 'Creator' },
  { value: 'review', label: 'Reviewer' },
  { value: 'edit', label: 'Editor' },
  { value: 'comment', label: 'Commenter' },
  { value: 'read', label: 'Reader' },
];

/** A `<select>` value cannot be null: the guest is the option "guest". */
export const GUEST = 'guest';

export function roleLabel(role: RoleOrGuest): string {
  return role === null ? 'Guest' : (ROLES.find((item) => item.value === role)?.label ?? role);
}

export function roleFromOption(value: string): RoleOrGuest {
  return value === GUEST ? null : (value as Role);
}

export function optionFromRole(role: RoleOrGuest): string {
  return role ?? GUEST;
}
