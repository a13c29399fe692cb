import { unwrap } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { expectError, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * Users by id through the generated client: read by the people of an organization they share (the address
 * only by themselves and that organization's admins), unknown to everyone else; changed only by themselves.
 */
describeEachDialect('users', (dialect) => {
  const server = useTestServer({ dialect });
  const userPath = (userId: string) => ({ params: { path: { userId } } });

  describe('getUserById', () => {
    it('answers oneself, and the people of a shared organization (their address to its admins only); others are 404', async () => {
      const { organizationId, admin, people } = await organizationWithPeople(server, 'Users org', { reader: 'read', guest: null });
      const reader = people.reader!;
      const guest = people.guest!;
      expect(await unwrap(reader.client.GET('/users/{userId}', userPath(reader.userId)))).toMatchObject({ object: 'user', id: reader.userId, email: reader.email });
      const seenByAdmin = await unwrap(admin.client.GET('/users/{userId}', userPath(reader.userId)));
      expect(seenByAdmin).toMatchObject({ id: reader.userId, email: reader.email });
      expect(seenByAdmin.urls.location).toMatch(new RegExp(`/users/${reader.userId}$`));
      const seenByGuest = await unwrap(guest.client.GET('/users/{userId}', userPath(reader.userId)));
      expect(seenByGuest.id).toBe(reader.userId);
      expect(seenByGuest.email).toBeUndefined();
      expect((await unwrap(reader.client.GET('/users/{userId}', userPath(admin.userId)))).email).toBeUndefined();

      const other = await organizationWithPeople(server, 'Other users org');
      expectError(await other.admin.client.GET('/users/{userId}', userPath(reader.userId)), 404);
      expectError(await reader.client.GET('/users/{userId}', userPath('no-such-user')), 404);
      // A member who leaves the organization is unknown to its people afterwards.
      expect((await admin.client.DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId, userId: guest.userId } } })).response.status).toBe(204);
      expectError(await guest.client.GET('/users/{userId}', userPath(reader.userId)), 404);
    });
  });

  describe('updateUserById', () => {
    it('changes the name and picture of oneself only; 403 for someone one sees, 404 for others; bad input changes nothing', async () => {
      const { admin, people } = await organizationWithPeople(server, 'Profile org', { reader: 'read' });
      const reader = people.reader!;
      const updated = await unwrap(reader.client.PATCH('/users/{userId}', { ...userPath(reader.userId), body: { displayName: 'Ada Reader', photoURL: 'https://example.com/ada.png' } }));
      expect(updated).toMatchObject({ id: reader.userId, displayName: 'Ada Reader', photoURL: 'https://example.com/ada.png', email: reader.email });
      expect(await unwrap(admin.client.GET('/users/{userId}', userPath(reader.userId)))).toMatchObject({ displayName: 'Ada Reader', photoURL: 'https://example.com/ada.png' });
      expect((await unwrap(reader.client.PATCH('/users/{userId}', { ...userPath(reader.userId), body: { displayName: 'Ada' } }))).photoURL).toBe('https://example.com/ada.png');

      expectError(await admin.client.PATCH('/users/{userId}', { ...userPath(reader.userId), body: { displayName: 'Renamed' } }), 403);
      const other = await organizationWithPeople(server, 'Other profile org');
      expectError(await other.admin.client.PATCH('/users/{userId}', { ...userPath(reader.userId), body: { displayName: 'Renamed' } }), 404);
      expectError(await reader.client.PATCH('/users/{userId}', { ...userPath(reader.userId), body: {} }), 400);
      expectError(await reader.client.PATCH('/users/{userId}', { ...userPath(reader.userId), body: { displayName: '' } }), 400);
      expectError(await reader.client.PATCH('/users/{userId}', { ...userPath(reader.userId), body: { photoURL: 'not a url' } }), 400);
      expectError(await reader.client.PATCH('/users/{userId}', { ...userPath(reader.userId), body: { email: 'x@example.com' } as never }), 400);
      expect(await unwrap(reader.client.GET('/users/{userId}', userPath(reader.userId)))).toMatchObject({ displayName: 'Ada', photoURL: 'https://example.com/ada.png' });
    });
  });
});
