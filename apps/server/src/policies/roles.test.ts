import { describe, expect, it } from 'vitest';
import { organizationPermissions } from './organization-policy.js';
import { atLeast, highest, parseDefaultLevel, parseRole, ROLES } from './roles.js';

describe('roles', () => {
  it('orders admin > create > review > edit > comment > read, and a guest has none', () => {
    for (const [index, role] of ROLES.entries()) {
      for (const [other, needed] of ROLES.entries()) expect(atLeast(role, needed)).toBe(index <= other);
      expect(atLeast(null, role)).toBe(false);
    }
    expect(highest(null, 'read', 'edit', 'comment')).toBe('edit');
    expect(highest(null, null)).toBeNull();
  });

  it('parses stored roles and default levels, trusting nothing unknown', () => {
    expect(parseRole('review')).toBe('review');
    expect(parseRole('owner')).toBeNull();
    expect(parseDefaultLevel('inherit')).toBe('inherit');
    expect(parseDefaultLevel('comment')).toBe('comment');
    expect(parseDefaultLevel('everyone')).toBeNull();
    expect(parseDefaultLevel(null)).toBeNull();
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
