import { describe, expect, it } from 'vitest';
import { collectionPermissions } from './collection-policy.js';
import { refusalReason, spacePermissions } from './space-policy.js';

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

  it('derives collection permissions from the role', () => {
    expect(collectionPermissions('create')).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
    expect(collectionPermissions('admin')).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });
    expect(collectionPermissions(null)).toEqual({ view: false, admin: false, viewInviteLinks: false, create: false });
  });
});
