import { unwrap } from '@quire/client';
import { expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { useTestServer } from './helpers.js';

describeEachDialect('organization permissions', (dialect) => {
  const server = useTestServer({ dialect });

  it('reports ownTeam only for members who own a team, in the organization and in the list', async () => {
    const owner = await server.bootstrap('Own team org');
    const writer = await server.addMember(owner.organizationId, 'writer@example.com', 'edit');
    const admin = server.client(owner.token);
    const params = { path: { organizationId: owner.organizationId } };

    const before = await unwrap(server.client(writer.token).GET('/orgs/{organizationId}', { params }));
    expect(before.permissions.ownTeam).toBe(false);

    const team = await unwrap(admin.PUT('/orgs/{organizationId}/teams', { params, body: { title: 'Writers' } }));
    await unwrap(admin.PUT('/orgs/{organizationId}/teams/{teamId}/members/{userId}', {
      params: { path: { organizationId: owner.organizationId, teamId: team.id, userId: writer.userId } },
      body: { role: 'member' },
    }));
    expect((await unwrap(server.client(writer.token).GET('/orgs/{organizationId}', { params }))).permissions.ownTeam).toBe(false);

    await unwrap(admin.PUT('/orgs/{organizationId}/teams/{teamId}/members/{userId}', {
      params: { path: { organizationId: owner.organizationId, teamId: team.id, userId: writer.userId } },
      body: { role: 'owner' },
    }));
    expect((await unwrap(server.client(writer.token).GET('/orgs/{organizationId}', { params }))).permissions.ownTeam).toBe(true);
    const listed = await unwrap(server.client(writer.token).GET('/orgs'));
    expect(listed.items.find((org) => org.id === owner.organizationId)?.permissions.ownTeam).toBe(true);
  });
});
