import { describe, expect, it } from 'vitest';
import type { OrganizationMembership } from './organization-policy.js';
import type { RoleOrGuest } from './roles.js';
import { contentRole, organizationReach } from './visibility-policy.js';

const member = (role: RoleOrGuest, disabled = false): OrganizationMembership => ({ role, disabled });

describe('visibility policy', () => {
  it('decides the admin and guest shortcut from the membership alone', () => {
    expect(organizationReach(member('admin'))).toEqual({ kind: 'everything' });
    expect(organizationReach(member('review'))).toEqual({ kind: 'default-levels', role: 'review' });
    expect(organizationReach(member(null))).toEqual({ kind: 'granted-only' });
    expect(organizationReach(member('admin', true))).toEqual({ kind: 'nothing' });
    expect(organizationReach(undefined)).toEqual({ kind: 'nothing' });
  });

  it('resolves the role through the default levels, nearest first, up to the organization role', () => {
    expect(contentRole({ membership: member('review'), defaultLevels: ['inherit', 'inherit'], grants: [] })).toBe('review');
    expect(contentRole({ membership: member('edit'), defaultLevels: ['inherit', 'read'], grants: [] })).toBe('read');
    expect(contentRole({ membership: member('read'), defaultLevels: ['comment', null], grants: [] })).toBe('comment');
    expect(contentRole({ membership: member('edit'), defaultLevels: ['inherit', null, 'admin'], grants: [] })).toBeNull();
    expect(contentRole({ membership: member('create'), defaultLevels: [], grants: [] })).toBe('create');
  });

  it('gives admins everything whatever the levels, and guests, suspended members and outsiders nothing', () => {
    expect(contentRole({ membership: member('admin'), defaultLevels: [null], grants: [] })).toBe('admin');
    expect(contentRole({ membership: member('admin'), defaultLevels: ['read'], grants: [] })).toBe('admin');
    expect(contentRole({ membership: member(null), defaultLevels: ['edit'], grants: [] })).toBeNull();
    expect(contentRole({ membership: member(null), defaultLevels: ['inherit'], grants: [] })).toBeNull();
    expect(contentRole({ membership: member('edit', true), defaultLevels: ['inherit'], grants: [] })).toBeNull();
    expect(contentRole({ membership: undefined, defaultLevels: ['read'], grants: [] })).toBeNull();
  });

  it('takes the highest of the role through default levels and the granted roles; grants never lower a role', () => {
    expect(contentRole({ membership: member(null), defaultLevels: ['inherit'], grants: ['comment', 'edit'] })).toBe('edit');
    expect(contentRole({ membership: member('read'), defaultLevels: [null], grants: ['review'] })).toBe('review');
    expect(contentRole({ membership: member('edit'), defaultLevels: ['inherit'], grants: ['read'] })).toBe('edit');
    expect(contentRole({ membership: member('admin'), defaultLevels: [null], grants: ['read'] })).toBe('admin');
    // Suspended members and outsiders get nothing from grants.
    expect(contentRole({ membership: member(null, true), defaultLevels: ['inherit'], grants: ['admin'] })).toBeNull();
    expect(contentRole({ membership: undefined, defaultLevels: ['inherit'], grants: ['admin'] })).toBeNull();
  });
});
