import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { collectionPermissions } from '../src/policies/collection-policy.js';
import { canReviewOwnChangeRequest } from '../src/policies/merge-rule-policy.js';
import { membershipFromRow } from '../src/policies/organization-policy.js';
import { ROLES, type Role, type RoleOrGuest } from '../src/policies/roles.js';
import { spacePermissions, type SpacePermission } from '../src/policies/space-policy.js';
import { contentRole } from '../src/policies/visibility-policy.js';
import { describeEachDialect } from './dialects.js';
import { createCollection, createSpace, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * The role matrix, generated from the policy functions: for each kind of caller (every organization role,
 * a guest with every granted role, a member whose role a grant raises, someone of another organization),
 * what `contentRole` and `spacePermissions`/`collectionPermissions` say is what the server does: 404 where
 * the policy hides the content, the `permissions` object equal to the policy's, and each guarded operation
 * of spaces, collections, change requests and comments allowed exactly when its permission is true.
 */

interface Caller {
  name: string;
  userId: string;
  client: QuireClient;
  /** The policy's inputs for this caller on the space (default levels `inherit`, so the organization role counts). */
  orgRole: RoleOrGuest | 'outsider';
  grant?: Role;
}

describeEachDialect('role matrix', (dialect) => {
  const server = useTestServer({ dialect });

  function expectedRole(caller: Caller): RoleOrGuest {
    if (caller.orgRole === 'outsider') return contentRole({ membership: undefined, defaultLevels: ['inherit'], grants: caller.grant ? [caller.grant] : [] });
    return contentRole({ membership: membershipFromRow({ role: caller.orgRole, disabled: 0 }), defaultLevels: ['inherit', 'inherit'], grants: caller.grant ? [caller.grant] : [] });
  }

  async function matrix() {
    const roles: Record<string, RoleOrGuest> = {};
    for (const role of ROLES.filter((r) => r !== 'admin')) roles[`member-${role}`] = role;
    for (const role of ROLES) roles[`guest-${role}`] = null;
    roles['reader-raised'] = 'read';
    roles['guest-none'] = null;
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Matrix org', roles);
    const other = await organizationWithPeople(server, 'Other org', {});
    const org = { organizationId, client: admin.client };
    const collection = await createCollection(org, { title: 'Matrix' });
    const space = await createSpace(org, { title: 'Matrix space', parent: collection.id });
    const callers: Caller[] = [{ name: 'admin', userId: admin.userId, client: admin.client, orgRole: 'admin' }];
    for (const role of ROLES.filter((r) => r !== 'admin')) callers.push({ name: `member-${role}`, userId: people[`member-${role}`]!.userId, client: people[`member-${role}`]!.client, orgRole: role });
    // Guests get their role on the collection (so it reaches the space inside); the raised reader gets `review` on the space.
    for (const role of ROLES) {
      const person = people[`guest-${role}`]!;
      await unwrap(admin.client.POST('/collections/{collectionId}/permissions', { params: { path: { collectionId: collection.id } }, body: { role, users: [person.userId] } }));
      callers.push({ name: `guest-${role}`, userId: person.userId, client: person.client, orgRole: null, grant: role });
    }
    await unwrap(admin.client.POST('/spaces/{spaceId}/permissions', { params: { path: { spaceId: space.id } }, body: { role: 'review', users: [people['reader-raised']!.userId] } }));
    callers.push({ name: 'reader-raised', userId: people['reader-raised']!.userId, client: people['reader-raised']!.client, orgRole: 'read', grant: 'review' });
    callers.push({ name: 'guest-none', userId: people['guest-none']!.userId, client: people['guest-none']!.client, orgRole: null });
    callers.push({ name: 'outsider', userId: other.admin.userId, client: other.admin.client, orgRole: 'outsider' });
    return { admin, space, collection, callers };
  }

  describe('getSpaceById role matrix', () => {
    it('answers each caller what the policy says: visibility, permissions and every guarded operation', async () => {
      const { admin, space, collection, callers } = await matrix();
      // One change request by the admin for the review, merge and comment operations.
      for (const caller of callers) {
        const role = expectedRole(caller);
        const got = await caller.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } });
        const gotCollection = await caller.client.GET('/collections/{collectionId}', { params: { path: { collectionId: collection.id } } });
        if (role === null) {
          expect(got.response.status, caller.name).toBe(404);
          expect(gotCollection.response.status, caller.name).toBe(404);
          continue;
        }
        const permissions = spacePermissions(role, { editMode: 'live', deleted: false });
        expect(got.data?.permissions, caller.name).toEqual(permissions);
        expect(gotCollection.data?.permissions, caller.name).toEqual(collectionPermissions(role));

        const cr = await unwrap(admin.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: { subject: caller.name } }));
        const crPath = { params: { path: { spaceId: space.id, changeRequestId: cr.id } } };
        const checks: Array<[SpacePermission | 'create', () => Promise<{ response: Response }>]> = [
          ['edit', () => caller.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: {} })],
          ['edit', () => caller.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath, body: { subject: 'renamed' } })],
          ['comment', () => caller.client.POST('/spaces/{spaceId}/comments', { params: { path: { spaceId: space.id } }, body: { body: { markdown: 'hi' } } as never })],
          ['review', () => caller.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { ...crPath, body: { status: 'approved' } })],
          ['admin', () => caller.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { title: 'Matrix space' } })],
          ['admin', () => caller.client.GET('/spaces/{spaceId}/permissions/users', { params: { path: { spaceId: space.id } } })],
          ['create', () => caller.client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: space.organization } }, body: { title: 'Inside', parent: collection.id } })],
          // Merge last: it closes the request.
          ['merge', () => caller.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', crPath)],
        ];
        for (const [permission, call] of checks) {
          // The admin created the request: reviewing one's own request is refused by the review policy.
          const allowed = permission === 'create'
            ? collectionPermissions(role).create
            : permissions[permission] && (permission !== 'review' || canReviewOwnChangeRequest(caller.userId, admin.userId));
          const { response } = await call();
          if (allowed) expect(response.status, `${caller.name} ${permission}`).toBeLessThan(300);
          else expect(response.status, `${caller.name} ${permission}`).toBe(403);
        }
        // The collection's admin operation follows its permissions too.
        const updated = await caller.client.PATCH('/collections/{collectionId}', { params: { path: { collectionId: collection.id } }, body: { title: 'Matrix' } });
        expect(updated.response.status, `${caller.name} collection admin`).toBe(collectionPermissions(role).admin ? 200 : 403);
      }
    }, 120_000);
  });
});
