import { describe, expect, it } from 'vitest';
import { organizationPermissions } from './organization-policy.js';
import { atLeast, effectiveRole, highest, resolveDefaultLevel, ROLES } from './roles.js';

describe('roles', () => {
  it('orders admin > create > review > edit > comment > read, and a guest has none', () => {
    for (const [index, role] of ROLES.entries()) {
      for (const [other, needed] of ROLES.entries()) expect(atLeast(role, needed)).toBe(index <= other);
      expect(atLeast(null, role)).toBe(false);
    }
    expect(highest(null, 'read', 'edit', 'comment')).toBe('edit');
    expect(highest(null, null)).toBeNull();
  });

  it('resolves default levels through inherit up to the organization role', () => {
    expect(resolveDefaultLevel(['inherit', 'inherit'], 'review')).toBe('review');
    expect(resolveDefaultLevel(['inherit', 'comment'], 'admin')).toBe('comment');
    expect(resolveDefaultLevel([null, 'edit'], 'edit')).toBeNull();
    expect(resolveDefaultLevel([], 'read')).toBe('read');
  });

  it('computes the effective role: admins administrate, members get defaults and grants, guests grants only', () => {
    expect(effectiveRole({ organizationRole: 'admin', defaultLevels: [null] })).toBe('admin');
    expect(effectiveRole({ organizationRole: 'edit', defaultLevels: ['inherit'] })).toBe('edit');
    expect(effectiveRole({ organizationRole: 'edit', defaultLevels: ['read'], grants: ['review'] })).toBe('review');
    expect(effectiveRole({ organizationRole: 'create', defaultLevels: [null] })).toBeNull();
    expect(effectiveRole({ organizationRole: null, defaultLevels: ['inherit', 'edit'] })).toBeNull();
    expect(effectiveRole({ organizationRole: null, grants: ['comment'] })).toBe('comment');
  });

  it('derives organization permissions from the same role checks', () => {
    expect(organizationPermissions(undefined)).toMatchObject({ view: false, admin: false, listMembers: false });
    expect(organizationPermissions({ role: 'admin', disabled: true })).toMatchObject({ view: false, admin: false });
    expect(organizationPermissions({ role: 'admin', disabled: false })).toMatchObject({ view: true, admin: true, createContent: true, viewBilling: true });
    expect(organizationPermissions({ role: 'create', disabled: false })).toMatchObject({ admin: false, createContent: true, ingestConversations: true });
    expect(organizationPermissions({ role: 'comment', disabled: false })).toMatchObject({ createContent: false, ingestConversations: false, listMembers: true });
    expect(organizationPermissions({ role: null, disabled: false })).toMatchObject({ view: true, listMembers: false, listTeams: false });
  });
});
