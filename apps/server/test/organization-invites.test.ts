import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { unwrap, type QuireClient } from '@quire/client';
// The package's index.d.ts imports './client' without an extension, which NodeNext resolution does not follow;
// its client class is typed from the file itself (a type-only import, erased at run time).
import type { Api, MemberRole } from '../../../node_modules/@gitbook/api/dist/client.js';
import { describe, expect, it } from 'vitest';
import { newId } from '../src/ids.js';
import { verifyPassword } from '../src/services/password-hashing.js';
import { describeEachDialect } from './dialects.js';
import { expectError, newMember, newOrg, useTestServer, type TestOrg } from './helpers.js';
import type { TestServer } from './server.js';
import { storedPasswordHash, storedText } from './storage-facts.js';
import { setInviteExpiry } from './storage-setup.js';

/*
 * Invitations to an organization through the generated client, on a server without a mail server (the answers
 * carry the join addresses; test/invitation-mail.test.ts sends them over SMTP). The public operations' answers
 * are also checked against the public API's description by the wire gate (test/server.ts).
 */

const PASSWORD = 'correct horse battery staple 42';

const secretOf = (url: string): string => new URL(url).pathname.split('/').pop()!;

async function emailOf(client: QuireClient): Promise<string> {
  return (await unwrap(client.GET('/user'))).email!;
}

function orgPath(organizationId: string) {
  return { params: { path: { organizationId } } };
}

async function inviteByEmail(org: TestOrg, emails: Array<string | { email: string; role: 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read' | null }>, role?: 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read' | null) {
  return unwrap(org.client.POST('/orgs/{organizationId}/invites', { ...orgPath(org.organizationId), body: { emails, ...(role !== undefined ? { role } : {}) } }));
}

async function turnInviteLinks(org: TestOrg, on: boolean): Promise<void> {
  await unwrap(org.client.PATCH('/orgs/{organizationId}', { ...orgPath(org.organizationId), body: { inviteLinks: on } }));
}

async function createLink(org: TestOrg, body: { role: 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read' | null; maxUses?: number; expiresAt?: string }) {
  return unwrap(org.client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(org.organizationId), body }));
}

function join(client: QuireClient, organizationId: string, inviteSecret: string) {
  return client.POST('/orgs/{organizationId}/invites/{inviteSecret}', { params: { path: { organizationId, inviteSecret } } });
}

async function memberRole(org: TestOrg, userId: string): Promise<string | null | undefined> {
  const found = await org.client.GET('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId } } });
  return found.data ? found.data.role : undefined;
}

function preview(server: TestServer, invite: string) {
  return server.client().POST('/auth/invites/preview', { body: { invite } });
}

function accept(server: TestServer, invite: string, password = PASSWORD, displayName = 'New Writer') {
  return server.client().POST('/auth/invites/accept', { body: { invite, displayName, password } });
}

const freshEmail = (label: string) => `${label}-${newId(8).toLowerCase()}@example.com`;

describeEachDialect('organization invites', (dialect) => {
  const server = useTestServer({ dialect });

  describe('inviteUsersToOrganization', () => {
    it('makes one invitation per address with its role, answering each join address when no mail server is set', async () => {
      const org = await newOrg(server, 'Inviting');
      const [ada, bob, guest] = [freshEmail('ada'), freshEmail('bob'), freshEmail('guest')];
      const sent = await inviteByEmail(org, [ada, { email: bob.toUpperCase(), role: 'edit' }, { email: guest, role: null }], 'comment');
      expect(sent.users).toEqual([]);
      expect(sent.invited).toBe(3);
      expect(sent.invites.map((invite) => [invite.email, invite.role])).toEqual([[ada, 'comment'], [bob, 'edit'], [guest, null]]);
      for (const invite of sent.invites) {
        expect(invite.url).toMatch(new RegExp(`^${server.running.services.publicUrl}/join/[A-Za-z0-9_-]{43}$`));
        const days = (Date.parse(invite.expiresAt) - Date.now()) / 86_400_000;
        expect(days).toBeGreaterThan(6.9);
        expect(days).toBeLessThanOrEqual(7);
      }
      expect(new Set(sent.invites.map((invite) => invite.url)).size).toBe(3);
      // Without `role`, the organization's default role (read when it has none).
      expect((await inviteByEmail(org, [freshEmail('default')])).invites[0]!.role).toBe('read');
    });

    it('invites nobody already in the organization, and replaces a waiting invitation of the same address', async () => {
      const org = await newOrg(server, 'Re-inviting');
      const member = await newMember(server, org, 'edit');
      const address = freshEmail('again');
      const first = await inviteByEmail(org, [await emailOf(member.client), address]);
      expect(first.invites.map((invite) => invite.email)).toEqual([address]);
      expect(first.invited).toBe(1);
      const second = await inviteByEmail(org, [address], 'edit');
      expectError(await preview(server, secretOf(first.invites[0]!.url!)), 404, 'This invitation was revoked');
      expect((await unwrap(preview(server, secretOf(second.invites[0]!.url!)))).role).toBe('edit');
    });

    it('is for admins, and refuses what is not an address', async () => {
      const org = await newOrg(server, 'Invite rights');
      const editor = await newMember(server, org, 'create');
      expectError(await editor.client.POST('/orgs/{organizationId}/invites', { ...orgPath(org.organizationId), body: { emails: [freshEmail('x')] } }), 403);
      expectError(await org.client.POST('/orgs/{organizationId}/invites', { ...orgPath(org.organizationId), body: { emails: ['not an address'] } }), 400);
      expectError(await org.client.POST('/orgs/{organizationId}/invites', { ...orgPath(org.organizationId), body: { emails: [] } }), 400);
      const outsider = await newOrg(server, 'Not theirs');
      expectError(await outsider.client.POST('/orgs/{organizationId}/invites', { ...orgPath(org.organizationId), body: { emails: [freshEmail('x')] } }), 404);
    });
  });

  describe('previewOrganizationInvite', () => {
    it('tells the organization, role and address of an invitation to anyone holding its secret, and 404 for anything else', async () => {
      const org = await newOrg(server, 'Previewed');
      const address = freshEmail('preview');
      const { invites } = await inviteByEmail(org, [address], 'edit');
      const shown = await unwrap(preview(server, secretOf(invites[0]!.url!)));
      expect(shown).toEqual({ object: 'organization-invite-preview', organization: { id: org.organizationId, title: 'Previewed' }, role: 'edit', email: address, expiresAt: invites[0]!.expiresAt });
      await turnInviteLinks(org, true);
      const link = await createLink(org, { role: 'read' });
      const linkPreview = await unwrap(preview(server, secretOf(link.url!)));
      expect(linkPreview).not.toHaveProperty('email');
      expect(linkPreview.role).toBe('read');
      expectError(await preview(server, 'a'.repeat(43)), 404, 'No invitation has this secret');
      expectError(await preview(server, 'not a secret!'), 400);
      expectError(await server.client().POST('/auth/invites/preview', { body: {} as never }), 400);
    });

    it('refuses an expired invitation', async () => {
      const org = await newOrg(server, 'Expiring');
      const { invites } = await inviteByEmail(org, [freshEmail('late')]);
      await setInviteExpiry(server, invites[0]!.id, new Date(Date.now() - 1000));
      expectError(await preview(server, secretOf(invites[0]!.url!)), 404, 'This invitation has expired');
      expectError(await accept(server, secretOf(invites[0]!.url!)), 404, 'This invitation has expired');
    });
  });

  describe('acceptOrganizationInvite', () => {
    it('makes the account with its password and the membership with the role, once', async () => {
      const org = await newOrg(server, 'Accepting');
      const address = freshEmail('newcomer');
      const { invites } = await inviteByEmail(org, [address], 'edit');
      const secret = secretOf(invites[0]!.url!);

      expectError(await accept(server, secret, 'short'), 400, 'password must be at least 12 characters long');
      expectError(await accept(server, secret, 'password1234'), 400, 'password is one of the most common passwords; choose another');
      expectError(await accept(server, secret, PASSWORD, '   '), 400);
      const accepted = await accept(server, secret);
      expect(accepted.response.status).toBe(201);
      expect(accepted.data).toMatchObject({ object: 'organization-invite-acceptance', organizationId: org.organizationId, role: 'edit', user: { object: 'user', email: address, displayName: 'New Writer' } });
      const userId = accepted.data!.user.id;
      expect(await memberRole(org, userId)).toBe('edit');
      // What signing in checks: the stored argon2id hash verifies this password and no other.
      const hash = (await storedPasswordHash(server, userId))!;
      expect(hash).toMatch(/^\$argon2id\$/);
      expect(await verifyPassword(hash, PASSWORD)).toBe(true);
      expect(await verifyPassword(hash, `${PASSWORD}!`)).toBe(false);

      // A replay changes nothing: the invitation is used.
      expectError(await accept(server, secret, 'another long passphrase 77'), 404, 'This invitation has been used');
      expect(await verifyPassword((await storedPasswordHash(server, userId))!, PASSWORD)).toBe(true);
      expectError(await preview(server, secret), 404, 'This invitation has been used');
    });

    it('sends people who have an account, and holders of a link, to sign in and join', async () => {
      const org = await newOrg(server, 'Has accounts');
      const elsewhere = await newOrg(server, 'Elsewhere');
      const { invites } = await inviteByEmail(org, [await emailOf(elsewhere.client)]);
      expectError(await accept(server, secretOf(invites[0]!.url!)), 409, /sign in, then join/);
      await turnInviteLinks(org, true);
      const link = await createLink(org, { role: 'read' });
      expectError(await accept(server, secretOf(link.url!)), 409, /invite link is for people with an account/);
      // Neither was used up by the refusal.
      await unwrap(join(elsewhere.client, org.organizationId, secretOf(invites[0]!.url!)));
      expect(await memberRole(org, elsewhere.userId)).toBe('read');
    });

    it('lets one of two concurrent acceptances through', async () => {
      const org = await newOrg(server, 'Racing accept');
      const { invites } = await inviteByEmail(org, [freshEmail('race')]);
      const secret = secretOf(invites[0]!.url!);
      const answers = await Promise.all([accept(server, secret), accept(server, secret), accept(server, secret)]);
      const statuses = answers.map((answer) => answer.response.status).sort();
      expect(statuses[0]).toBe(201);
      expect(statuses.slice(1).every((status) => status === 404 || status === 409)).toBe(true);
    });
  });

  describe('joinOrganizationWithInvite', () => {
    it('makes someone signed in a member with the link\'s role, once each, until its uses run out', async () => {
      const org = await newOrg(server, 'Link joining');
      await turnInviteLinks(org, true);
      const link = await createLink(org, { role: 'comment', maxUses: 2 });
      const secret = secretOf(link.url!);
      const first = await newOrg(server, 'First joiner');
      const second = await newOrg(server, 'Second joiner');
      const third = await newOrg(server, 'Third joiner');
      expect((await join(first.client, org.organizationId, secret)).response.status).toBe(200);
      expect(await memberRole(org, first.userId)).toBe('comment');
      expectError(await join(first.client, org.organizationId, secret), 409, 'You are in this organization already');
      await unwrap(join(second.client, org.organizationId, secret));
      expectError(await join(third.client, org.organizationId, secret), 404, 'This invitation has been used');
      expect(await memberRole(org, third.userId)).toBeUndefined();
      expect((await unwrap(org.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: org.organizationId, inviteId: link.id } } }))).uses).toBe(2);

      // Removed and back: the same person does not join twice with one invitation.
      const roomy = await createLink(org, { role: 'read' });
      const fourth = await newOrg(server, 'Fourth joiner');
      await unwrap(join(fourth.client, org.organizationId, secretOf(roomy.url!)));
      await unwrap(org.client.DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: fourth.userId } } }));
      expectError(await join(fourth.client, org.organizationId, secretOf(roomy.url!)), 409, 'You have joined with this invitation before');
    });

    it('gives the last use of a link to one of the people asking at once', async () => {
      const org = await newOrg(server, 'Last use');
      await turnInviteLinks(org, true);
      const link = await createLink(org, { role: 'read', maxUses: 2 });
      const people = await Promise.all([1, 2, 3, 4, 5].map((n) => newOrg(server, `Racer ${n}`)));
      const answers = await Promise.all(people.map((person) => join(person.client, org.organizationId, secretOf(link.url!))));
      const statuses = answers.map((answer) => answer.response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(2);
      expect(statuses.filter((status) => status !== 200).every((status) => status === 404 || status === 409)).toBe(true);
      const members = await unwrap(org.client.GET('/orgs/{organizationId}/members', { ...orgPath(org.organizationId), params: { ...orgPath(org.organizationId).params, query: { limit: 100 } } }));
      expect(members.items.filter((member) => people.some((person) => person.userId === member.user.id))).toHaveLength(2);
    });

    it('takes an e-mail invitation for its own address only, and nobody\'s invitation in another organization', async () => {
      const org = await newOrg(server, 'Email joining');
      const invited = await newOrg(server, 'Invited person');
      const other = await newOrg(server, 'Other person');
      const { invites } = await inviteByEmail(org, [await emailOf(invited.client)], 'review');
      const secret = secretOf(invites[0]!.url!);
      expectError(await join(other.client, org.organizationId, secret), 403, 'This invitation is for another e-mail address');
      expectError(await join(invited.client, other.organizationId, secret), 404, 'No invitation has this secret');
      await unwrap(join(invited.client, org.organizationId, secret));
      expect(await memberRole(org, invited.userId)).toBe('review');

      // `sso: true` makes the person an SSO member when they join.
      const ssoPerson = await newOrg(server, 'SSO person');
      const ssoInvite = await unwrap(org.client.POST('/orgs/{organizationId}/invites', { ...orgPath(org.organizationId), body: { emails: [await emailOf(ssoPerson.client)], sso: true } }));
      await unwrap(join(ssoPerson.client, org.organizationId, secretOf(ssoInvite.invites[0]!.url!)));
      const member = await unwrap(org.client.GET('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: ssoPerson.userId } } }));
      expect(member.sso).toBe(true);
    });

    it('refuses revoked and expired invitations, and every link while the organization turns links off', async () => {
      const org = await newOrg(server, 'Refusing');
      await turnInviteLinks(org, true);
      const person = await newOrg(server, 'Joiner');
      const revoked = await createLink(org, { role: 'read' });
      await org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: org.organizationId, inviteId: revoked.id } } });
      expectError(await join(person.client, org.organizationId, secretOf(revoked.url!)), 404, 'This invitation was revoked');
      const expired = await createLink(org, { role: 'read' });
      await setInviteExpiry(server, expired.id, new Date(Date.now() - 1000));
      expectError(await join(person.client, org.organizationId, secretOf(expired.url!)), 404, 'This invitation has expired');
      const paused = await createLink(org, { role: 'read' });
      await turnInviteLinks(org, false);
      expectError(await join(person.client, org.organizationId, secretOf(paused.url!)), 404, 'Invite links are turned off for this organization');
      await turnInviteLinks(org, true);
      await unwrap(join(person.client, org.organizationId, secretOf(paused.url!)));
      expect(await memberRole(org, person.userId)).toBe('read');
      expectError(await server.client().POST('/orgs/{organizationId}/invites/{inviteSecret}', { params: { path: { organizationId: org.organizationId, inviteSecret: secretOf(paused.url!) } } }), 401);
    });
  });

  describe('createOrganizationInvite', () => {
    it('makes a link with its role, expiry and use limit while the organization allows links', async () => {
      const org = await newOrg(server, 'Making links');
      expectError(await org.client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(org.organizationId), body: { role: 'read' } }), 403, /inviteLinks/);
      await turnInviteLinks(org, true);
      const expiresAt = new Date(Date.now() + 3 * 86_400_000).toISOString();
      const link = await createLink(org, { role: null, maxUses: 5, expiresAt });
      expect(link).toMatchObject({ object: 'invite', role: null, redundant: true, maxUses: 5, uses: 0, expiresAt });
      expect(link.url).toMatch(/\/join\/[A-Za-z0-9_-]{43}$/);
      const byDefault = await createLink(org, { role: 'edit' });
      expect(byDefault.maxUses).toBeNull();
      expect((Date.parse(byDefault.expiresAt) - Date.now()) / 86_400_000).toBeGreaterThan(29.9);
      expectError(await org.client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(org.organizationId), body: { role: 'read', expiresAt: new Date(Date.now() - 60_000).toISOString() } }), 400, 'expiresAt must be in the future');
      expectError(await org.client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(org.organizationId), body: { role: 'read', expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString() } }), 400, 'expiresAt must be at most a year ahead');
      expectError(await org.client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(org.organizationId), body: { role: 'read', maxUses: 0 } }), 400);
      const creator = await newMember(server, org, 'create');
      expectError(await creator.client.POST('/orgs/{organizationId}/link-invites', { ...orgPath(org.organizationId), body: { role: 'read' } }), 403);
    });
  });

  describe('listOrganizationInviteLinks', () => {
    it('lists the links not revoked, oldest first, one page at a time, without their secrets', async () => {
      const org = await newOrg(server, 'Listing links');
      await turnInviteLinks(org, true);
      const made = [];
      for (const role of ['read', 'edit', 'comment'] as const) made.push(await createLink(org, { role }));
      await inviteByEmail(org, [freshEmail('not-a-link')]);
      await org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: org.organizationId, inviteId: made[1]!.id } } });
      const first = await unwrap(org.client.GET('/orgs/{organizationId}/link-invites', { params: { path: { organizationId: org.organizationId }, query: { limit: 1 } } }));
      expect(first.count).toBe(2);
      expect(first.items.map((item) => item.id)).toEqual([made[0]!.id]);
      const second = await unwrap(org.client.GET('/orgs/{organizationId}/link-invites', { params: { path: { organizationId: org.organizationId }, query: { limit: 1, page: first.next!.page } } }));
      expect(second.items.map((item) => item.id)).toEqual([made[2]!.id]);
      expect(second.next).toBeUndefined();
      for (const item of [...first.items, ...second.items]) expect(item).not.toHaveProperty('url');
      const reader = await newMember(server, org, 'read');
      expectError(await reader.client.GET('/orgs/{organizationId}/link-invites', orgPath(org.organizationId)), 403);
    });
  });

  describe('listPendingOrganizationInvites', () => {
    it('lists the e-mail invitations nobody used or revoked, oldest first, one page at a time, without their addresses', async () => {
      const org = await newOrg(server, 'Waiting invitations');
      await turnInviteLinks(org, true);
      const [ada, bob, cy, dee] = [freshEmail('ada'), freshEmail('bob'), freshEmail('cy'), freshEmail('dee')];
      const sent = await inviteByEmail(org, [ada, { email: bob, role: 'edit' }, cy, dee], 'comment');
      await createLink(org, { role: 'read' });
      const byEmail = new Map(sent.invites.map((invite) => [invite.email, invite]));
      // Revoked, used and replaced invitations are no longer waiting.
      await org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: org.organizationId, inviteId: byEmail.get(cy)!.id } } });
      await unwrap(accept(server, secretOf(byEmail.get(dee)!.url!)));
      const again = await inviteByEmail(org, [{ email: ada, role: 'review' }]);
      const list = (query: { limit: number; page?: string }) => unwrap(org.client.GET('/orgs/{organizationId}/invites', { params: { path: { organizationId: org.organizationId }, query } }));
      const first = await list({ limit: 1 });
      expect(first.count).toBe(2);
      expect(first.items).toEqual([{ object: 'email-invite', id: byEmail.get(bob)!.id, email: bob, role: 'edit', expiresAt: byEmail.get(bob)!.expiresAt }]);
      const second = await list({ limit: 1, page: first.next!.page });
      expect(second.items.map((item) => [item.id, item.email, item.role])).toEqual([[again.invites[0]!.id, ada, 'review']]);
      expect(second.next).toBeUndefined();
      expect(second.items[0]).not.toHaveProperty('url');
      const editor = await newMember(server, org, 'edit');
      expectError(await editor.client.GET('/orgs/{organizationId}/invites', orgPath(org.organizationId)), 403);
      const other = await newOrg(server, 'Not theirs');
      expectError(await other.client.GET('/orgs/{organizationId}/invites', orgPath(org.organizationId)), 404);
      expectError(await org.client.GET('/orgs/{organizationId}/invites', { params: { path: { organizationId: org.organizationId }, query: { limit: 0 } } }), 400);
    });
  });

  describe('getOrganizationInviteLink', () => {
    it('answers a link without its secret, and 404 for an e-mail invitation, a revoked link or another organization\'s', async () => {
      const org = await newOrg(server, 'Getting links');
      await turnInviteLinks(org, true);
      const link = await createLink(org, { role: 'edit', maxUses: 3 });
      const path = (inviteId: string) => ({ params: { path: { organizationId: org.organizationId, inviteId } } });
      const got = await unwrap(org.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', path(link.id)));
      const { url: _url, ...withoutUrl } = link;
      expect(got).toEqual(withoutUrl);
      const { invites } = await inviteByEmail(org, [freshEmail('mailed')]);
      expectError(await org.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', path(invites[0]!.id)), 404);
      const other = await newOrg(server, 'Other links');
      expectError(await other.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', path(link.id)), 404);
      expectError(await other.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: other.organizationId, inviteId: link.id } } }), 404);
    });
  });

  describe('updateOrganizationInviteById', () => {
    it('changes the role, expiry and use limit of a link, never below its uses', async () => {
      const org = await newOrg(server, 'Updating links');
      await turnInviteLinks(org, true);
      const link = await createLink(org, { role: 'read', maxUses: 3 });
      const path = { params: { path: { organizationId: org.organizationId, inviteId: link.id } } };
      const joiner = await newOrg(server, 'Early joiner');
      await unwrap(join(joiner.client, org.organizationId, secretOf(link.url!)));
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const updated = await unwrap(org.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { ...path, body: { role: 'admin', expiresAt, maxUses: null } }));
      expect(updated).toMatchObject({ id: link.id, role: 'admin', expiresAt, maxUses: null, uses: 1, redundant: true });
      expect(updated).not.toHaveProperty('url');
      expect(await memberRole(org, joiner.userId)).toBe('read');
      const later = await newOrg(server, 'Later joiner');
      await unwrap(join(later.client, org.organizationId, secretOf(link.url!)));
      expect(await memberRole(org, later.userId)).toBe('admin');
      expectError(await org.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { ...path, body: { maxUses: 1 } }), 400, 'maxUses cannot be below the 2 uses already made');
      expectError(await org.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { ...path, body: {} as never }), 400);
      const editor = await newMember(server, org, 'edit');
      expectError(await editor.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { ...path, body: { role: 'admin' } }), 403);
    });
  });

  describe('deleteOrganizationInviteById', () => {
    it('revokes a link or an e-mail invitation (205), then answers 204', async () => {
      const org = await newOrg(server, 'Revoking');
      await turnInviteLinks(org, true);
      const link = await createLink(org, { role: 'read' });
      const { invites } = await inviteByEmail(org, [freshEmail('revoked')]);
      for (const inviteId of [link.id, invites[0]!.id]) {
        const path = { params: { path: { organizationId: org.organizationId, inviteId } } };
        expect((await org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', path)).response.status).toBe(205);
        expect((await org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', path)).response.status).toBe(204);
      }
      expectError(await accept(server, secretOf(invites[0]!.url!)), 404, 'This invitation was revoked');
      const reader = await newMember(server, org, 'read');
      const kept = await createLink(org, { role: 'read' });
      expectError(await reader.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: org.organizationId, inviteId: kept.id } } }), 403);
      expect((await unwrap(preview(server, secretOf(kept.url!)))).role).toBe('read');
    });
  });

  describe('joinOrganization', () => {
    it('makes someone whose address is of a declared domain a member with the default role', async () => {
      const org = await newOrg(server, 'Open to a domain');
      const person = await newOrg(server, 'Domain person');
      expectError(await person.client.POST('/orgs/{organizationId}/join', orgPath(org.organizationId)), 400, /domain is not one of the organization's/);
      await unwrap(org.client.PATCH('/orgs/{organizationId}', { ...orgPath(org.organizationId), body: { emailDomains: ['example.com'] } }));
      expect((await person.client.POST('/orgs/{organizationId}/join', orgPath(org.organizationId))).response.status).toBe(204);
      expect(await memberRole(org, person.userId)).toBe('read');
      // Joining again changes nothing.
      expect((await person.client.POST('/orgs/{organizationId}/join', orgPath(org.organizationId))).response.status).toBe(204);
      expectError(await person.client.POST('/orgs/{organizationId}/join', orgPath('no-such-organization')), 404);
    });
  });

  describe('invitation secrets', () => {
    it('show in the answer that makes them and nowhere else, and are stored only hashed and sealed', async () => {
      const org = await newOrg(server, 'Secret keeping');
      await turnInviteLinks(org, true);
      const link = await createLink(org, { role: 'read' });
      const { invites } = await inviteByEmail(org, [freshEmail('secret')]);
      const secrets = [secretOf(link.url!), secretOf(invites[0]!.url!)];
      const joiner = await newOrg(server, 'Secret joiner');
      const answers: unknown[] = [
        await unwrap(org.client.GET('/orgs/{organizationId}/link-invites', orgPath(org.organizationId))),
        await unwrap(org.client.GET('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: org.organizationId, inviteId: link.id } } })),
        await unwrap(org.client.PATCH('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: org.organizationId, inviteId: link.id } }, body: { role: 'comment' } })),
        await unwrap(preview(server, secrets[0]!)),
        await unwrap(preview(server, secrets[1]!)),
        await unwrap(join(joiner.client, org.organizationId, secrets[0]!)),
        (await accept(server, secrets[1]!)).data,
        await unwrap(org.client.GET('/orgs/{organizationId}', orgPath(org.organizationId))),
        await unwrap(org.client.GET('/orgs/{organizationId}/members', orgPath(org.organizationId))),
      ];
      const text = JSON.stringify(answers) + (await storedText(server, ['organization_invites', 'organization_invite_uses', 'jobs']));
      for (const secret of secrets) expect(text).not.toContain(secret);
    });
  });
});

/*
 * The public API's official client (@gitbook/api 0.146.0) against Quire, unchanged: the invite operations
 * it has, called by position as its users call them.
 */
describeEachDialect('organization invites through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });

  it('invites by e-mail, makes, reads, changes and deletes a link, and joins with it', async () => {
    const org = await newOrg(server, 'Official invites');
    const api = new GitBookAPI({ endpoint: server.url, authToken: org.token }) as unknown as Api<unknown>;
    const address = freshEmail('official');
    const { data: sent } = await api.orgs.inviteUsersToOrganization(org.organizationId, { emails: [address], role: 'edit' as MemberRole });
    expect(sent).toMatchObject({ users: [], invited: 1 });

    await api.orgs.updateOrganizationById(org.organizationId, { inviteLinks: true });
    const { data: link } = await api.orgs.createOrganizationInvite(org.organizationId, { role: 'comment' as MemberRole });
    expect(link).toMatchObject({ object: 'invite', role: 'comment', redundant: true });
    expect((await api.orgs.listOrganizationInviteLinks(org.organizationId)).data.items.map((item) => item.id)).toEqual([link.id]);
    expect((await api.orgs.getOrganizationInviteLink(org.organizationId, link.id)).data).toMatchObject({ id: link.id, role: 'comment' });
    expect((await api.orgs.updateOrganizationInviteById(org.organizationId, link.id, { role: 'review' as MemberRole })).data).toMatchObject({ role: 'review' });

    const joiner = await newOrg(server, 'Official joiner');
    const joinerApi = new GitBookAPI({ endpoint: server.url, authToken: joiner.token }) as unknown as Api<unknown>;
    const secret = secretOf((link as { url?: string }).url!);
    await joinerApi.orgs.joinOrganizationWithInvite(org.organizationId, secret);
    expect(await memberRole(org, joiner.userId)).toBe('review');

    await api.orgs.deleteOrganizationInviteById(org.organizationId, link.id);
    expect((await api.orgs.listOrganizationInviteLinks(org.organizationId)).data.items).toEqual([]);
    await expect(api.orgs.getOrganizationInviteLink(org.organizationId, link.id)).rejects.toBeInstanceOf(GitBookAPIError);
  });
});
