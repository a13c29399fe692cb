/**
 * Roles from most to least powerful. A guest (null) has no organization-wide role and so none of them.
 * Every permission decision compares roles through these functions, and the `permissions` objects in
 * responses are computed by the same policies, so what a response says a caller may do is what the
 * server lets them do.
 */
export const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
export type Role = (typeof ROLES)[number];
/** An organization role: null is a guest. */
export type RoleOrGuest = Role | null;
/** The default level of a collection or space: `inherit` defers to its parent, null grants nothing. */
export type DefaultLevel = Role | 'inherit' | null;

const RANK: Readonly<Record<Role, number>> = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Parses a stored role; anything unknown is treated as no role rather than trusted. */
export function parseRole(value: string | null | undefined): RoleOrGuest {
  return isRole(value) ? value : null;
}

/** Parses a stored default level; anything unknown grants nothing rather than being trusted. */
export function parseDefaultLevel(value: string | null): DefaultLevel {
  if (value === 'inherit') return 'inherit';
  return isRole(value) ? value : null;
}

export function rank(role: RoleOrGuest): number {
  return role === null ? 0 : RANK[role];
}

/** Whether `role` grants at least `needed`; a guest grants nothing. */
export function atLeast(role: RoleOrGuest, needed: Role): boolean {
  return rank(role) >= RANK[needed];
}

/** The more powerful of the given roles (null when all are null). */
export function highest(...roles: RoleOrGuest[]): RoleOrGuest {
  let best: RoleOrGuest = null;
  for (const role of roles) if (rank(role) > rank(best)) best = role;
  return best;
}
