import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createCollection, createSpace, expectError, newMember, newOrg, useTestServer, type TestOrg } from './helpers.js';
import type { TestServer } from './server.js';
import { setInviteExpiry } from './storage-setup.js';

/*
 * Invite links to one space or one collection (`createOrganizationInvite` with `{level, space}` or
 * `{level, collection}`), through the generated client: made by whoever may invite to that content, read,
 * changed and revoked, and joined with, which makes the person a guest with exactly that level there. Links
 * to the organization itself are covered by test/organization-invites.test.ts.
 */

type Level = 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read';

const secretOf = (url: string): string => new URL(url).pathname.split('/').pop()!;
const orgPath = (organizationId: string) => ({ params: { path: { organizationId } } });
const linkPath = (organizationId: string, inviteId: string) => ({ params: { path: { organizationId, inviteId } } });

async function linksOn(org: TestOrg): Promise<void> {
  await unwrap(org.client.PATCH('/orgs/{organizationId}', { ...orgPath(org.organizationId), body: { inviteLinks: true } }));
}

function createInvite(client: QuireClient, organizationId: string, body: { level: Level; space: string } | { level: Level; collection: string } | { role: Level | null }) {
  return client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(organizationId), body });
}

function join(client: QuireClient, organizationId: string, inviteSecret: string) {
  return client.POST('/orgs/{organizationId}/invites/{inviteSecret}', { params: { path: { organizationId, inviteSecret } } });
}

function preview(server: TestServer, invite: string) {
  return server.client().POST('/auth/invites/preview', { body: { invite } });
}

async function memberRole(org: TestOrg, userId: string): Promise<string | null | undefined> {
  const found = await org.client.GET('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId } } });
  return found.data ? found.data.role : undefined;
}

/** The ids of the spaces the client sees in the organization. */
async function visibleSpaceIds(client: QuireClient, organizationId: string): Promise<string[]> {
  const page = await unwrap(client.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId }, query: { limit: 1000 } } }));
  return page.items.map((space) => space.id).sort();
}

function spacePermissions(client: QuireClient, spaceId: string) {
  return client.GET('/spaces/{spaceId}', { params: { path: { spaceId } } });
}

function grantOnSpace(org: TestOrg, spaceId: string, userId: string, role: Level) {
  return unwrap(org.client.POST('/spaces/{spaceId}/permissions', { params: { path: { spaceId } }, body: { role, users: [userId] } }));
}

describeEachDialect('content invite links', (dialect) => {
  const server = useTestServer({ dialect });

  it('makes, reads, changes and revokes a link to a space in the public form; the organization\'s list keeps to links to itself', async () => {
    const org = await newOrg(server, 'Space links');
    await linksOn(org);
    const space = await createSpace(org, { title: 'Handbook' });
    const made = await unwrap(createInvite(org.client, org.organizationId, { level: 'edit', space: space.id }));
    expect(made).toMatchObject({ object: 'invite', level: 'edit', redundant: true, uses: 0, maxUses: null, space: { object: 'space', id: space.id, title: 'Handbook' } });
    expect(made).not.toHaveProperty('role');
    expect(made.url).toMatch(/\/join\/[A-Za-z0-9_-]{43}$/);
    const orgLink = await unwrap(createInvite(org.client, org.organizationId, { role: 'read' }));

    const listed = await unwrap(org.client.GET('/orgs/{organizationId}/link-invites', orgPath(org.organizationId)));
    expect(listed.items.map((item) => item.id)).toEqual([orgLink.id]);
    const read = await unwrap(org.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, made.id)));
    expect(read).toMatchObject({ id: made.id, level: 'edit', space: { id: space.id } });
    expect(read).not.toHaveProperty('url');

    const changed = await unwrap(org.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { ...linkPath(org.organizationId, made.id), body: { level: 'comment', maxUses: 5 } }));
    expect(changed).toMatchObject({ level: 'comment', maxUses: 5 });
    // The other kind's field is refused, saying which one the link takes; nothing changes.
    expectError(await org.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { ...linkPath(org.organizationId, made.id), body: { role: 'read', maxUses: 9 } }), 400, 'role is for invite links to the organization; this link is to a space: change its level');
    expectError(await org.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { ...linkPath(org.organizationId, orgLink.id), body: { level: 'read' } }), 400, 'level is for invite links to a space or collection; this link is to the organization: change its role');
    expect(await unwrap(org.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, made.id)))).toMatchObject({ level: 'comment', maxUses: 5 });

    expect((await org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, made.id))).response.status).toBe(205);
    expectError(await org.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, made.id)), 404);
    expect((await org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, made.id))).response.status).toBe(204);
  });

  it('is made and managed by whoever may invite to the content, never for content of another organization', async () => {
    const org = await newOrg(server, 'Who invites');
    await linksOn(org);
    const [mine, theirs] = [await createSpace(org, { title: 'Mine' }), await createSpace(org, { title: 'Theirs' })];
    const spaceAdmin = await newMember(server, org, 'read');
    await grantOnSpace(org, mine.id, spaceAdmin.userId, 'admin');

    const made = await unwrap(createInvite(spaceAdmin.client, org.organizationId, { level: 'read', space: mine.id }));
    expect(made.redundant).toBe(true);
    await unwrap(spaceAdmin.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, made.id)));
    await unwrap(spaceAdmin.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { ...linkPath(org.organizationId, made.id), body: { level: 'comment' } }));
    expectError(await createInvite(spaceAdmin.client, org.organizationId, { level: 'read', space: theirs.id }), 403, 'You need the admin permission of this space');
    expectError(await createInvite(spaceAdmin.client, org.organizationId, { role: 'read' }), 403);
    // A link to content they do not administer, or to the organization, is not theirs to read or revoke.
    const theirsLink = await unwrap(createInvite(org.client, org.organizationId, { level: 'read', space: theirs.id }));
    expectError(await spaceAdmin.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, theirsLink.id)), 403);
    expectError(await spaceAdmin.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, theirsLink.id)), 403);
    expect((await spaceAdmin.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, made.id))).response.status).toBe(205);

    // Someone who sees both organizations cannot make one organization's link to the other's space.
    const other = await newOrg(server, 'Other organization');
    await linksOn(other);
    const entry = await unwrap(createInvite(other.client, other.organizationId, { role: 'read' }));
    await unwrap(join(org.client, other.organizationId, secretOf(entry.url!)));
    expectError(await createInvite(org.client, other.organizationId, { level: 'read', space: mine.id }), 404, 'No space of this organization matches body.space');
    expectError(await createInvite(other.client, other.organizationId, { level: 'read', space: mine.id }), 404, 'No space matches this id');
    expectError(await createInvite(org.client, org.organizationId, { level: 'read', collection: 'no-such-collection' }), 404);
  });

  it('makes the person a guest with exactly the space\'s level, once; members keep their role and higher grants', async () => {
    const org = await newOrg(server, 'Joining a space');
    await linksOn(org);
    const [shared, hidden] = [await createSpace(org, { title: 'Shared' }), await createSpace(org, { title: 'Hidden' })];
    const link = await unwrap(createInvite(org.client, org.organizationId, { level: 'edit', space: shared.id }));
    const secret = secretOf(link.url!);
    expect(await unwrap(preview(server, secret))).toEqual({
      object: 'organization-invite-preview', organization: { id: org.organizationId, title: 'Joining a space' }, role: null,
      space: { id: shared.id, title: 'Shared' }, level: 'edit', expiresAt: link.expiresAt,
    });

    const outsider = await newOrg(server, 'Outsider');
    await unwrap(join(outsider.client, org.organizationId, secret));
    expect(await memberRole(org, outsider.userId)).toBeNull();
    expect(await visibleSpaceIds(outsider.client, org.organizationId)).toEqual([shared.id]);
    const seen = await unwrap(spacePermissions(outsider.client, shared.id));
    expect(seen.permissions).toMatchObject({ view: true, edit: true, review: false, admin: false });
    expectError(await spacePermissions(outsider.client, hidden.id), 404);
    expectError(await join(outsider.client, org.organizationId, secret), 409, 'You have joined with this invitation before');

    // A member keeps their organization role and gains the level; a higher role granted before is kept.
    const reader = await newMember(server, org, 'read');
    await unwrap(join(reader.client, org.organizationId, secret));
    expect(await memberRole(org, reader.userId)).toBe('read');
    expect((await unwrap(spacePermissions(reader.client, shared.id))).permissions).toMatchObject({ edit: true, admin: false });
    const spaceAdmin = await newMember(server, org, 'read');
    await grantOnSpace(org, shared.id, spaceAdmin.userId, 'admin');
    await unwrap(join(spaceAdmin.client, org.organizationId, secret));
    expect((await unwrap(spacePermissions(spaceAdmin.client, shared.id))).permissions.admin).toBe(true);
    expect((await unwrap(org.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, link.id)))).uses).toBe(3);
  });

  it('gives a collection\'s level on the collection and everything in it', async () => {
    const org = await newOrg(server, 'Joining a collection');
    await linksOn(org);
    const collection = await createCollection(org, { title: 'Guides' });
    const inside = await createSpace(org, { title: 'Inside', parent: collection.id });
    await createSpace(org, { title: 'Outside' });
    const link = await unwrap(createInvite(org.client, org.organizationId, { level: 'comment', collection: collection.id }));
    expect(link).toMatchObject({ level: 'comment', collection: { object: 'collection', id: collection.id } });
    expect(await unwrap(preview(server, secretOf(link.url!)))).toMatchObject({ role: null, collection: { id: collection.id, title: 'Guides' }, level: 'comment' });

    const guest = await newOrg(server, 'Collection guest');
    await unwrap(join(guest.client, org.organizationId, secretOf(link.url!)));
    expect(await visibleSpaceIds(guest.client, org.organizationId)).toEqual([inside.id]);
    expect((await unwrap(spacePermissions(guest.client, inside.id))).permissions).toMatchObject({ comment: true, edit: false });
    expect((await unwrap(guest.client.GET('/collections/{collectionId}', { params: { path: { collectionId: collection.id } } }))).id).toBe(collection.id);
  });

  it('refuses used-up, expired and revoked links, links to deleted content, and bodies of no form', async () => {
    const org = await newOrg(server, 'Refusals');
    const space = await createSpace(org, { title: 'Refused' });
    expectError(await createInvite(org.client, org.organizationId, { level: 'read', space: space.id }), 403, 'Invite links are turned off for this organization (its inviteLinks setting)');
    await linksOn(org);
    const person = await newOrg(server, 'Refused person');

    const once = await unwrap(org.client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(org.organizationId), body: { level: 'read', space: space.id, maxUses: 1 } }));
    await unwrap(join((await newOrg(server, 'First')).client, org.organizationId, secretOf(once.url!)));
    expectError(await join(person.client, org.organizationId, secretOf(once.url!)), 404, 'This invitation has been used');

    const expired = await unwrap(createInvite(org.client, org.organizationId, { level: 'read', space: space.id }));
    await setInviteExpiry(server, expired.id, new Date(Date.now() - 1000));
    expectError(await join(person.client, org.organizationId, secretOf(expired.url!)), 404, 'This invitation has expired');
    const revoked = await unwrap(createInvite(org.client, org.organizationId, { level: 'read', space: space.id }));
    await unwrap(org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', linkPath(org.organizationId, revoked.id)));
    expectError(await join(person.client, org.organizationId, secretOf(revoked.url!)), 404, 'This invitation was revoked');

    const orphan = await unwrap(createInvite(org.client, org.organizationId, { level: 'read', space: space.id }));
    await unwrap(org.client.DELETE('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }));
    const gone = 'The space of this invitation was deleted or moved out of the organization';
    expectError(await preview(server, secretOf(orphan.url!)), 404, gone);
    expectError(await join(person.client, org.organizationId, secretOf(orphan.url!)), 404, gone);
    expect(await memberRole(org, person.userId)).toBeUndefined();

    const live = await createSpace(org);
    const noForm = [{ level: 'read' }, { role: 'read', space: live.id }, { level: null, space: live.id }, { level: 'read', space: live.id, collection: 'x' }];
    for (const body of noForm) expectError(await org.client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(org.organizationId), body: body as never }), 400);
  });
});
