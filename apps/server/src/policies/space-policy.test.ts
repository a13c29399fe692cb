import { describe, expect, it } from 'vitest';
import { collectionChain, collectionPermissions, contentRole, contentVisibilityFilter, passesVisibilityFilter, type CollectionLevel } from './collection-policy.js';
import type { OrganizationMembership } from './organization-policy.js';
import { ROLES, type DefaultLevel, type RoleOrGuest } from './roles.js';
import { refusalReason, spacePermissions, spaceRole } from './space-policy.js';

const LEVELS: DefaultLevel[] = ['inherit', null, ...ROLES];
const member = (role: RoleOrGuest, disabled = false): OrganizationMembership => ({ role, disabled });

describe('space and collection policies', () => {
  it('derives space permissions from the role, the lock and deletion', () => {
    expect(spacePermissions('read', { editMode: 'live', deleted: false })).toEqual({
      view: true, access: true, admin: false, viewInviteLinks: false, edit: false, triggerGitSync: false, comment: false, merge: false, review: false, installIntegration: false,
    });
    expect(spacePermissions('edit', { editMode: 'live', deleted: false })).toMatchObject({ edit: true, comment: true, merge: false, review: false });
    expect(spacePermissions('review', { editMode: 'live', deleted: false })).toMatchObject({ edit: true, merge: true, review: true, admin: false });
    expect(spacePermissions('admin', { editMode: 'locked', deleted: false })).toMatchObject({ admin: true, edit: false, merge: false, triggerGitSync: false, comment: true });
    expect(spacePermissions('admin', { editMode: 'live', deleted: true })).toMatchObject({ view: true, admin: true, edit: false, access: false, comment: false });
    expect(spacePermissions(null, { editMode: 'live', deleted: false }).view).toBe(false);
    expect(refusalReason('edit', 'admin', { editMode: 'locked', deleted: false })).toMatch(/locked/);
    expect(refusalReason('edit', 'read', { editMode: 'locked', deleted: false })).toBe('You need the edit permission of this space');
  });

  it('resolves the space role through its level, then its collections outwards, then the organization role', () => {
    expect(spaceRole(member('edit'), 'inherit', ['inherit', 'read'])).toBe('read');
    expect(spaceRole(member('edit'), 'comment', [null])).toBe('comment');
    expect(spaceRole(member('edit'), 'inherit', [null, 'admin'])).toBeNull();
    expect(spaceRole(member('admin'), null, [null])).toBe('admin');
    expect(spaceRole(member(null), 'edit', [])).toBeNull();
    expect(spaceRole(member('admin', true), 'inherit', [])).toBeNull();
    expect(spaceRole(undefined, 'read', [])).toBeNull();
    expect(collectionPermissions('create')).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
  });

  it('filters lists exactly as the role decides for single reads, for every combination of levels', () => {
    // Three nested collections and a sibling, with every level at every place: the list filter must agree
    // with the role a single read computes.
    for (const role of [null, ...ROLES] as RoleOrGuest[]) {
      for (const outer of LEVELS) {
        for (const inner of LEVELS) {
          const collections: CollectionLevel[] = [
            { id: 'outer', parentId: null, defaultLevel: outer },
            { id: 'inner', parentId: 'outer', defaultLevel: inner },
          ];
          const filter = contentVisibilityFilter(member(role), collections);
          const byId = new Map(collections.map((collection) => [collection.id, collection]));
          for (const collectionId of [null, 'outer', 'inner']) {
            for (const spaceLevel of LEVELS) {
              const expected = spaceRole(member(role), spaceLevel, collectionChain(byId, collectionId)) !== null;
              expect(passesVisibilityFilter(filter, { defaultLevel: spaceLevel, collectionId }), `${role} ${outer} ${inner} ${collectionId} ${spaceLevel}`).toBe(expected);
            }
          }
          for (const collection of collections) {
            const visible = contentRole(member(role), collectionChain(byId, collection.id)) !== null;
            const hidden = filter.kind === 'none' || (filter.kind === 'members' && filter.hiddenCollections.includes(collection.id));
            expect(!hidden, `${role} ${outer} ${inner} ${collection.id}`).toBe(visible);
          }
        }
      }
    }
    expect(contentVisibilityFilter(member('admin', true), [])).toEqual({ kind: 'none' });
    expect(contentVisibilityFilter(undefined, [])).toEqual({ kind: 'none' });
  });
});
