import { paginate, unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { describeEachDialect } from './dialects.js';
import { expectError, organizationWithPeople, useTestServer } from './helpers.js';

describeEachDialect('teams', (dialect) => {
  const server = useTestServer({ dialect });

  const organization = (roles: Record<string, RoleOrGuest> = {}) => organizationWithPeople(server, 'Teams org', roles);

  const orgPath = (organizationId: string) => ({ path: { organizationId } });
  const teamPath = (organizationId: string, teamId: string) => ({ path: { organizationId, teamId } });
  const teamMemberPath = (organizationId: string, teamId: string, userId: string) => ({ path: { organizationId, teamId, userId } });

  const createTeam = (client: QuireClient, organizationId: string, body: unknown) =>
    client.PUT('/orgs/{organizationId}/teams', { params: orgPath(organizationId), body: body as never });
  const getTeam = (client: QuireClient, organizationId: string, teamId: string) =>
    client.GET('/orgs/{organizationId}/teams/{teamId}', { params: teamPath(organizationId, teamId) });
  const teamMembers = async (client: QuireClient, organizationId: string, teamId: string) => {
    const list = await unwrap(client.GET('/orgs/{organizationId}/teams/{teamId}/members', { params: { ...teamPath(organizationId, teamId), query: { limit: 1000 } } }));
    return Object.fromEntries(list.items.map((item) => [item.organization.id, item.team.role]));
  };
  const updateMembers = (client: QuireClient, organizationId: string, teamId: string, body: unknown) =>
    client.PUT('/orgs/{organizationId}/teams/{teamId}/members', { params: teamPath(organizationId, teamId), body: body as never });
  const errorMessage = (result: { error?: unknown }) => (result.error as { error: { message: string } }).error.message;

  describe('createOrganizationTeam', () => {
    it('creates a team with its initial members as `member` (201)', async () => {
      const org = await organization({ writer: 'edit', guest: null });
      const result = await createTeam(org.admin.client, org.organizationId, { title: '  Writers  ', members: [org.people.writer!.userId, org.people.guest!.userId, org.people.writer!.userId] });
      expect(result.response.status).toBe(201);
      const team = result.data!;
      expect(team).toMatchObject({ object: 'team', title: 'Writers', members: 2, spaces: 0, permissions: { admin: true, view: true } });
      expect(Date.parse(team.createdAt)).not.toBeNaN();
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({ [org.people.writer!.userId]: 'member', [org.people.guest!.userId]: 'member' });
      const empty = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Empty' }));
      expect(empty.members).toBe(0);
    });

    it('validates the body; an id that is not a member answers 400 and creates nothing', async () => {
      const org = await organization({ writer: 'edit' });
      const other = await organization();
      const message = async (body: unknown) => {
        const result = await createTeam(org.admin.client, org.organizationId, body);
        expect(result.response.status).toBe(400);
        return errorMessage(result);
      };
      expect(await message({})).toBe('body.title is required');
      expect(await message({ title: '' })).toMatch(/^body\.title/);
      expect(await message({ title: 'x'.repeat(65) })).toMatch(/^body\.title/);
      expect(await message({ title: '   ' })).toBe('body.title must not be blank');
      expect(await message({ title: 'T', colour: 'red' })).toBe('body.colour is not allowed');
      expect(await message({ title: 'T', members: 'everyone' })).toMatch(/^body\.members/);
      expect(await message({ title: 'T', members: Array.from({ length: 1001 }, (_, index) => `u${index}`) })).toMatch(/^body\.members/);
      expect(await message({ title: 'T', members: [org.people.writer!.userId, other.admin.userId] }))
        .toBe(`body.members[1] "${other.admin.userId}" is not a member of the organization`);
      expect(await unwrap(org.admin.client.GET('/orgs/{organizationId}/teams', { params: orgPath(org.organizationId) }))).toEqual({ count: 0, items: [] });
      expect(await message({ title: 'x'.repeat(64), members: [''] })).toMatch(/^body\.members/);
    });

    it('answers 403 below admin, 404 to another organization, 401 without a token', async () => {
      const org = await organization({ creator: 'create', guest: null });
      const other = await organization();
      expect((await createTeam(org.people.creator!.client, org.organizationId, { title: 'No' })).response.status).toBe(403);
      expect((await createTeam(org.people.guest!.client, org.organizationId, { title: 'No' })).response.status).toBe(403);
      expect((await createTeam(other.admin.client, org.organizationId, { title: 'No' })).response.status).toBe(404);
      expect((await createTeam(server.client(), org.organizationId, { title: 'No' })).response.status).toBe(401);
      expect((await unwrap(org.admin.client.GET('/orgs/{organizationId}/teams', { params: orgPath(org.organizationId) }))).count).toBe(0);
    });
  });

  describe('getTeamInOrganizationById', () => {
    it('answers the team with the caller permissions: admins and owners administer, members view', async () => {
      const org = await organization({ owner: 'read', reader: 'read', guestIn: null, guestOut: null });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Docs', members: [org.people.guestIn!.userId] }));
      await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams/{teamId}/members/{userId}', { params: teamMemberPath(org.organizationId, team.id, org.people.owner!.userId), body: { role: 'owner' } }));
      const asOwner = await unwrap(getTeam(org.people.owner!.client, org.organizationId, team.id));
      expect(asOwner).toMatchObject({ id: team.id, title: 'Docs', members: 2, permissions: { admin: true, view: true } });
      expect((await unwrap(getTeam(org.people.reader!.client, org.organizationId, team.id))).permissions).toEqual({ admin: false, view: true });
      expect((await unwrap(getTeam(org.people.guestIn!.client, org.organizationId, team.id))).permissions).toEqual({ admin: false, view: true });
      // A guest outside the team cannot see it: 404 like a missing team.
      const hidden = await getTeam(org.people.guestOut!.client, org.organizationId, team.id);
      const missing = await getTeam(org.people.guestOut!.client, org.organizationId, 'noSuchTeam000000000');
      expect(hidden.response.status).toBe(404);
      expect(hidden.error).toEqual(missing.error);
    });

    it('answers 404 to another organization and for a missing team, 401 without a token, 400 for a too long id', async () => {
      const org = await organization();
      const other = await organization();
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Docs' }));
      expect((await getTeam(other.admin.client, org.organizationId, team.id)).response.status).toBe(404);
      expect((await getTeam(other.admin.client, other.organizationId, team.id)).response.status).toBe(404);
      expect((await getTeam(org.admin.client, org.organizationId, 'noSuchTeam000000000')).response.status).toBe(404);
      expect((await getTeam(server.client(), org.organizationId, team.id)).response.status).toBe(401);
      expect((await getTeam(org.admin.client, org.organizationId, 't'.repeat(129))).response.status).toBe(400);
    });
  });

  describe('updateTeamInOrganizationById', () => {
    const rename = (client: QuireClient, organizationId: string, teamId: string, body: unknown) =>
      client.PATCH('/orgs/{organizationId}/teams/{teamId}', { params: teamPath(organizationId, teamId), body: body as never });

    it('renames the team for admins and team owners, 403 for other members', async () => {
      const org = await organization({ owner: 'read', plain: 'edit' });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Old', members: [org.people.plain!.userId] }));
      await unwrap(updateMembers(org.admin.client, org.organizationId, team.id, { memberships: { [org.people.owner!.userId]: { role: 'owner' } } }));
      expect(await unwrap(rename(org.admin.client, org.organizationId, team.id, { title: 'New' }))).toMatchObject({ id: team.id, title: 'New', members: 2 });
      expect((await unwrap(rename(org.people.owner!.client, org.organizationId, team.id, { title: 'Owned' }))).title).toBe('Owned');
      const forbidden = await rename(org.people.plain!.client, org.organizationId, team.id, { title: 'Mine' });
      expect(forbidden.response.status).toBe(403);
      expect((await unwrap(getTeam(org.admin.client, org.organizationId, team.id))).title).toBe('Owned');
    });

    it('validates the title and answers 404 to another organization, 401 without a token', async () => {
      const org = await organization();
      const other = await organization();
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Keep' }));
      for (const body of [{}, { title: '' }, { title: 'x'.repeat(65) }, { title: ' ' }, { title: 'Ok', members: [] }]) {
        expect((await rename(org.admin.client, org.organizationId, team.id, body)).response.status).toBe(400);
      }
      expect((await rename(other.admin.client, org.organizationId, team.id, { title: 'No' })).response.status).toBe(404);
      expect((await rename(org.admin.client, org.organizationId, 'noSuchTeam000000000', { title: 'No' })).response.status).toBe(404);
      expect((await rename(server.client(), org.organizationId, team.id, { title: 'No' })).response.status).toBe(401);
      expect((await unwrap(getTeam(org.admin.client, org.organizationId, team.id))).title).toBe('Keep');
    });
  });

  describe('removeTeamFromOrganizationById', () => {
    const removeTeam = (client: QuireClient, organizationId: string, teamId: string) =>
      client.DELETE('/orgs/{organizationId}/teams/{teamId}', { params: teamPath(organizationId, teamId) });

    it('deletes the team and its memberships; 204 again when absent', async () => {
      const org = await organization({ writer: 'edit' });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Gone', members: [org.people.writer!.userId] }));
      expect((await removeTeam(org.admin.client, org.organizationId, team.id)).response.status).toBe(204);
      expect((await getTeam(org.admin.client, org.organizationId, team.id)).response.status).toBe(404);
      const member = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: org.people.writer!.userId } } }));
      expect(member.teams).toBe(0);
      expect((await removeTeam(org.admin.client, org.organizationId, team.id)).response.status).toBe(204);
    });

    it('lets a team owner delete their team; 403 for a plain team member, 404 to another organization, 401 without a token', async () => {
      const org = await organization({ owner: 'read', plain: 'read' });
      const other = await organization();
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Owned', members: [org.people.plain!.userId] }));
      await unwrap(updateMembers(org.admin.client, org.organizationId, team.id, { add: [org.people.owner!.email], memberships: { [org.people.owner!.userId]: { role: 'owner' } } }));
      expect((await removeTeam(org.people.plain!.client, org.organizationId, team.id)).response.status).toBe(403);
      expect((await removeTeam(other.admin.client, org.organizationId, team.id)).response.status).toBe(404);
      expect((await removeTeam(server.client(), org.organizationId, team.id)).response.status).toBe(401);
      expect((await getTeam(org.admin.client, org.organizationId, team.id)).response.status).toBe(200);
      expect((await removeTeam(org.people.owner!.client, org.organizationId, team.id)).response.status).toBe(204);
      expect((await getTeam(org.admin.client, org.organizationId, team.id)).response.status).toBe(404);
    });

    it('answers a guest 404 for a team they cannot see, as every other team operation does, whether it exists or not; the team stays', async () => {
      const org = await organization({ guest: null, reader: 'read' });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Hidden' }));
      const hidden = await removeTeam(org.people.guest!.client, org.organizationId, team.id);
      const missing = await removeTeam(org.people.guest!.client, org.organizationId, 'noSuchTeam000000000');
      expectError(hidden, 404, 'No team of this organization has this id');
      expectError(missing, 404, 'No team of this organization has this id');
      expectError(await getTeam(org.people.guest!.client, org.organizationId, team.id), 404);
      expect((await getTeam(org.admin.client, org.organizationId, team.id)).response.status).toBe(200);
      // A member sees the whole team directory: a team absent for them is absent, and deleting it is done.
      expect((await removeTeam(org.people.reader!.client, org.organizationId, 'noSuchTeam000000000')).response.status).toBe(204);
    });
  });

  describe('listTeamsInOrganizationById', () => {
    const listTeams = (client: QuireClient, organizationId: string, query: Record<string, unknown> = {}) =>
      client.GET('/orgs/{organizationId}/teams', { params: { ...orgPath(organizationId), query: query as never } });

    it('filters by title ignoring case and by the teams a member can manage', async () => {
      const org = await organization({ owner: 'edit', plain: 'read' });
      const docs = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Docs writers' }));
      const api = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'API reviewers', members: [org.people.owner!.userId] }));
      const ops = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Ops_100%' }));
      await unwrap(updateMembers(org.admin.client, org.organizationId, docs.id, { memberships: { [org.people.owner!.userId]: { role: 'owner' } } }));
      await unwrap(updateMembers(org.admin.client, org.organizationId, ops.id, { add: [org.people.plain!.userId] }));

      const titles = async (query: Record<string, unknown>) => (await unwrap(listTeams(org.people.plain!.client, org.organizationId, query))).items.map((team) => team.title);
      expect(await titles({})).toEqual(['Docs writers', 'API reviewers', 'Ops_100%']);
      expect(await titles({ title: 'WRITERS' })).toEqual(['Docs writers']);
      expect(await titles({ title: 'r' })).toEqual(['Docs writers', 'API reviewers']);
      expect(await titles({ title: '_1' })).toEqual(['Ops_100%']);
      expect(await titles({ title: '%' })).toEqual(['Ops_100%']);
      // `owner`: a team owner manages the teams they own; an organization admin manages every team.
      expect(await titles({ owner: org.people.owner!.userId })).toEqual(['Docs writers']);
      expect(await titles({ owner: org.people.owner!.userId, title: 'api' })).toEqual([]);
      expect(await titles({ owner: org.admin.userId })).toEqual(['Docs writers', 'API reviewers', 'Ops_100%']);
      expect(await titles({ owner: org.people.plain!.userId })).toEqual([]);
      expect(await titles({ owner: 'notAMember000000000' })).toEqual([]);
      const list = await unwrap(listTeams(org.people.owner!.client, org.organizationId));
      expect(list.items.map((team) => team.permissions)).toEqual([{ admin: true, view: true }, { admin: false, view: true }, { admin: false, view: true }]);
      expect(list.items.find((team) => team.id === api.id)!.members).toBe(1);
    });

    it('pages through teams without repeats or gaps while teams are created between pages', async () => {
      const org = await organization();
      const expected: string[] = [];
      for (let index = 0; index < 5; index++) expected.push((await unwrap(createTeam(org.admin.client, org.organizationId, { title: `Team ${index}` }))).id);
      const seen: string[] = [];
      let created = 0;
      for await (const team of paginate((page) => listTeams(org.admin.client, org.organizationId, { limit: 2, ...(page ? { page } : {}) }) as never)) {
        seen.push((team as { id: string }).id);
        if (seen.length % 2 === 0 && created < 2) {
          expected.push((await unwrap(createTeam(org.admin.client, org.organizationId, { title: `Late ${created}` }))).id);
          created++;
        }
      }
      expect(seen).toEqual(expected);
      const first = await unwrap(listTeams(org.admin.client, org.organizationId, { limit: 3 }));
      expect(first.count).toBe(7);
      expect(first.next?.page).toBeTruthy();
      expect((await unwrap(listTeams(org.admin.client, org.organizationId, { limit: 1000 }))).next).toBeUndefined();
    });

    it('rejects bad parameters with 400 and answers 403 to guests, 404 to another organization, 401 without a token', async () => {
      const org = await organization({ guest: null });
      const other = await organization();
      const bad = async (query: Record<string, unknown>) => {
        const result = await listTeams(org.admin.client, org.organizationId, query);
        expect(result.response.status).toBe(400);
        return errorMessage(result);
      };
      expect(await bad({ limit: 1001 })).toBe('query.limit must be <= 1000');
      expect(await bad({ title: 'x'.repeat(65) })).toMatch(/^query\.title/);
      expect(await bad({ owner: '' })).toMatch(/^query\.owner/);
      expect(await bad({ owner: 'o'.repeat(129) })).toMatch(/^query\.owner/);
      expect(await bad({ page: 'bm90LWEtY3Vyc29y' })).toBe('query.page is not a valid page cursor');
      expect(await bad({ sort: 'title' })).toMatch(/^query\.sort/);
      expect((await listTeams(org.people.guest!.client, org.organizationId)).response.status).toBe(403);
      expect((await listTeams(other.admin.client, org.organizationId)).response.status).toBe(404);
      expect((await listTeams(server.client(), org.organizationId)).response.status).toBe(401);
    });
  });

  describe('listTeamMembersInOrganizationById', () => {
    const listMembers = (client: QuireClient, organizationId: string, teamId: string, query: Record<string, unknown> = {}) =>
      client.GET('/orgs/{organizationId}/teams/{teamId}/members', { params: { ...teamPath(organizationId, teamId), query: query as never } });

    it('answers each member as their organization membership with their team role', async () => {
      const org = await organization({ writer: 'edit', guest: null });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Mixed', members: [org.people.writer!.userId, org.people.guest!.userId] }));
      await unwrap(updateMembers(org.admin.client, org.organizationId, team.id, { memberships: { [org.people.writer!.userId]: { role: 'owner' } } }));
      const list = await unwrap(listMembers(org.people.guest!.client, org.organizationId, team.id));
      expect(list.count).toBe(2);
      const writer = list.items.find((item) => item.organization.id === org.people.writer!.userId)!;
      expect(writer).toMatchObject({ organization: { object: 'member', role: 'edit', teams: 1 }, team: { role: 'owner' }, permissions: { view: true } });
      expect(writer.organization.user.email).toBeUndefined();
      const self = list.items.find((item) => item.organization.id === org.people.guest!.userId)!;
      expect(self).toMatchObject({ organization: { role: null, user: { email: org.people.guest!.email } }, team: { role: 'member' } });
    });

    it('pages through the members while members are added between pages', async () => {
      const org = await organization({ a: 'read', b: 'read', c: 'read', d: 'read', e: 'read' });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Paged' }));
      const expected: string[] = [];
      for (const key of ['a', 'b', 'c']) {
        await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams/{teamId}/members/{userId}', { params: teamMemberPath(org.organizationId, team.id, org.people[key]!.userId) }));
        expected.push(org.people[key]!.userId);
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const seen: string[] = [];
      let page: string | undefined;
      const late = ['d', 'e'];
      do {
        const answer = await unwrap(listMembers(org.admin.client, org.organizationId, team.id, { limit: 1, ...(page ? { page } : {}) }));
        seen.push(...answer.items.map((item) => item.organization.id));
        page = answer.next?.page;
        const key = page ? late.shift() : undefined;
        if (key) {
          await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams/{teamId}/members/{userId}', { params: teamMemberPath(org.organizationId, team.id, org.people[key]!.userId) }));
          expected.push(org.people[key]!.userId);
        }
      } while (page);
      expect(late).toEqual([]);
      expect(seen).toEqual(expected);
      expect((await listMembers(org.admin.client, org.organizationId, team.id, { limit: 1001 })).response.status).toBe(400);
    });

    it('answers 404 to a guest outside the team and to another organization, 401 without a token', async () => {
      const org = await organization({ guest: null });
      const other = await organization();
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Closed' }));
      expect((await listMembers(org.people.guest!.client, org.organizationId, team.id)).response.status).toBe(404);
      expect((await listMembers(other.admin.client, org.organizationId, team.id)).response.status).toBe(404);
      expect((await listMembers(server.client(), org.organizationId, team.id)).response.status).toBe(401);
    });
  });

  describe('updateMembersInOrganizationTeam', () => {
    it('adds by id or e-mail, sets roles, and a user both added and removed ends up removed (204)', async () => {
      const org = await organization({ a: 'read', b: 'edit', c: 'read', d: null });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Batch', members: [org.people.c!.userId] }));
      const result = await updateMembers(org.admin.client, org.organizationId, team.id, {
        add: [org.people.a!.userId, org.people.b!.email.toUpperCase(), org.people.d!.email],
        remove: [org.people.c!.email, org.people.d!.userId],
        memberships: { [org.people.b!.userId]: { role: 'owner' } },
      });
      expect(result.response.status).toBe(204);
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({ [org.people.a!.userId]: 'member', [org.people.b!.userId]: 'owner' });

      // Adding again keeps the role; memberships changes it; removing someone not in the team is fine.
      await unwrap(updateMembers(org.admin.client, org.organizationId, team.id, {
        add: [org.people.b!.userId], remove: [org.people.c!.userId], memberships: { [org.people.a!.userId]: { role: 'owner' } },
      }));
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({ [org.people.a!.userId]: 'owner', [org.people.b!.userId]: 'owner' });
      expect((await updateMembers(org.admin.client, org.organizationId, team.id, {})).response.status).toBe(204);
      expect((await unwrap(getTeam(org.admin.client, org.organizationId, team.id))).members).toBe(2);
    });

    it('answers 400 for a user who is not a member of the organization and changes nothing', async () => {
      const org = await organization({ a: 'read', b: 'read' });
      const other = await organization();
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Atomic', members: [org.people.b!.userId] }));
      const before = await teamMembers(org.admin.client, org.organizationId, team.id);
      const cases: Array<[unknown, string]> = [
        [{ add: [org.people.a!.userId, other.admin.userId], remove: [org.people.b!.userId] }, `body.add[1] "${other.admin.userId}" is not a member of the organization`],
        [{ add: [org.people.a!.userId, 'nobody@example.com'] }, 'body.add[1] "nobody@example.com" is not a member of the organization'],
        [{ add: [org.people.a!.userId], remove: ['ghost0000000000000000'] }, 'body.remove[0] "ghost0000000000000000" is not a member of the organization'],
        [{ add: [org.people.a!.userId], memberships: { [other.admin.userId]: { role: 'owner' } } }, `body.memberships.${other.admin.userId} is not a member of the organization`],
      ];
      for (const [body, message] of cases) {
        const result = await updateMembers(org.admin.client, org.organizationId, team.id, body);
        expect(result.response.status).toBe(400);
        expect(errorMessage(result)).toBe(message);
        expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual(before);
      }
    });

    it('validates the body', async () => {
      const org = await organization({ a: 'read' });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Shapes' }));
      const bad = async (body: unknown) => {
        const result = await updateMembers(org.admin.client, org.organizationId, team.id, body);
        expect(result.response.status).toBe(400);
        return errorMessage(result);
      };
      expect(await bad({ invite: [] })).toBe('body.invite is not allowed');
      expect(await bad({ add: 'a' })).toMatch(/^body\.add/);
      expect(await bad({ add: [''] })).toMatch(/^body\.add/);
      expect(await bad({ add: ['x'.repeat(255)] })).toMatch(/^body\.add/);
      expect(await bad({ add: Array.from({ length: 1001 }, () => org.people.a!.userId) })).toMatch(/^body\.add/);
      expect(await bad({ memberships: { [org.people.a!.userId]: { role: 'admin' } } })).toMatch(/^body\.memberships/);
      expect(await bad({ memberships: { [org.people.a!.userId]: {} } })).toMatch(/^body\.memberships/);
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({});
    });

    it('is for admins and team owners: 403 for a plain member, 404 to another organization, 401 without a token', async () => {
      const org = await organization({ owner: 'read', plain: 'read', other: 'read' });
      const other = await organization();
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Guarded', members: [org.people.plain!.userId] }));
      await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams/{teamId}/members/{userId}', { params: teamMemberPath(org.organizationId, team.id, org.people.owner!.userId), body: { role: 'owner' } }));
      const body = { add: [org.people.other!.userId] };
      expect((await updateMembers(org.people.plain!.client, org.organizationId, team.id, body)).response.status).toBe(403);
      expect((await updateMembers(other.admin.client, org.organizationId, team.id, body)).response.status).toBe(404);
      expect((await updateMembers(server.client(), org.organizationId, team.id, body)).response.status).toBe(401);
      expect(Object.keys(await teamMembers(org.admin.client, org.organizationId, team.id))).not.toContain(org.people.other!.userId);
      expect((await updateMembers(org.people.owner!.client, org.organizationId, team.id, body)).response.status).toBe(204);
      expect(Object.keys(await teamMembers(org.admin.client, org.organizationId, team.id))).toContain(org.people.other!.userId);
    });
  });

  const addTeamMember = (client: QuireClient, organizationId: string, teamId: string, userId: string, body?: unknown) =>
    client.PUT('/orgs/{organizationId}/teams/{teamId}/members/{userId}', { params: teamMemberPath(organizationId, teamId, userId), ...(body === undefined ? {} : { body: body as never }) });
  const removeTeamMember = (client: QuireClient, organizationId: string, teamId: string, userId: string) =>
    client.DELETE('/orgs/{organizationId}/teams/{teamId}/members/{userId}', { params: teamMemberPath(organizationId, teamId, userId) });

  describe('addMemberToOrganizationTeamById', () => {
    it('adds with the role member by default, and keeps the role when re-added without one', async () => {
      const org = await organization({ a: 'read', b: null });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'One by one' }));
      expect((await addTeamMember(org.admin.client, org.organizationId, team.id, org.people.a!.userId)).response.status).toBe(204);
      expect((await addTeamMember(org.admin.client, org.organizationId, team.id, org.people.b!.userId, { role: 'owner' })).response.status).toBe(204);
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({ [org.people.a!.userId]: 'member', [org.people.b!.userId]: 'owner' });
      await unwrap(addTeamMember(org.admin.client, org.organizationId, team.id, org.people.b!.userId, {}));
      expect((await teamMembers(org.admin.client, org.organizationId, team.id))[org.people.b!.userId]).toBe('owner');
      await unwrap(addTeamMember(org.admin.client, org.organizationId, team.id, org.people.b!.userId, { role: 'member' }));
      expect((await teamMembers(org.admin.client, org.organizationId, team.id))[org.people.b!.userId]).toBe('member');
    });

    it('answers 404 for a user outside the organization or a missing team, 400 for a bad body', async () => {
      const org = await organization({ a: 'read' });
      const other = await organization();
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Strict' }));
      const stranger = await addTeamMember(org.admin.client, org.organizationId, team.id, other.admin.userId);
      expect(stranger.response.status).toBe(404);
      expect(errorMessage(stranger)).toBe('No member of this organization has this id');
      expect((await addTeamMember(org.admin.client, org.organizationId, 'noSuchTeam000000000', org.people.a!.userId)).response.status).toBe(404);
      const badRole = await addTeamMember(org.admin.client, org.organizationId, team.id, org.people.a!.userId, { role: 'admin' });
      expect(badRole.response.status).toBe(400);
      expect(errorMessage(badRole)).toMatch(/^body\.role/);
      const extra = await addTeamMember(org.admin.client, org.organizationId, team.id, org.people.a!.userId, { role: 'member', note: 'x' });
      expect(errorMessage(extra)).toBe('body.note is not allowed');
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({});
    });

    it('is for admins and team owners: 403 for a plain member, 404 to another organization, 401 without a token', async () => {
      const org = await organization({ plain: 'admin', reader: 'read' });
      const other = await organization();
      // `plain` is an organization admin in another sense; demote them to check the team rule alone.
      await unwrap(org.admin.client.PATCH('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: org.people.plain!.userId } }, body: { role: 'edit' } }));
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Guarded', members: [org.people.plain!.userId] }));
      expect((await addTeamMember(org.people.plain!.client, org.organizationId, team.id, org.people.reader!.userId)).response.status).toBe(403);
      expect((await addTeamMember(other.admin.client, org.organizationId, team.id, org.people.reader!.userId)).response.status).toBe(404);
      expect((await addTeamMember(server.client(), org.organizationId, team.id, org.people.reader!.userId)).response.status).toBe(401);
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({ [org.people.plain!.userId]: 'member' });
    });
  });

  describe('deleteMemberFromOrganizationTeamById', () => {
    it('removes one member and keeps the others, answering 204 also when the user is not in the team; 404 for a missing team', async () => {
      const org = await organization({ a: 'read', b: null });
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'One by one', members: [org.people.a!.userId, org.people.b!.userId] }));
      expect((await removeTeamMember(org.admin.client, org.organizationId, team.id, org.people.a!.userId)).response.status).toBe(204);
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({ [org.people.b!.userId]: 'member' });
      expect((await removeTeamMember(org.admin.client, org.organizationId, team.id, org.people.a!.userId)).response.status).toBe(204);
      expect((await removeTeamMember(org.admin.client, org.organizationId, 'noSuchTeam000000000', org.people.a!.userId)).response.status).toBe(404);
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({ [org.people.b!.userId]: 'member' });
    });

    it('is for admins and team owners: 403 for a plain member, 404 to another organization, 401 without a token', async () => {
      const org = await organization({ plain: 'admin', x: 'read' });
      const other = await organization();
      await unwrap(org.admin.client.PATCH('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: org.people.plain!.userId } }, body: { role: 'edit' } }));
      const team = await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Guarded', members: [org.people.plain!.userId, org.people.x!.userId] }));
      expect((await removeTeamMember(org.people.plain!.client, org.organizationId, team.id, org.people.x!.userId)).response.status).toBe(403);
      expect((await removeTeamMember(other.admin.client, org.organizationId, team.id, org.people.x!.userId)).response.status).toBe(404);
      expect((await removeTeamMember(server.client(), org.organizationId, team.id, org.people.x!.userId)).response.status).toBe(401);
      expect(await teamMembers(org.admin.client, org.organizationId, team.id)).toEqual({ [org.people.plain!.userId]: 'member', [org.people.x!.userId]: 'member' });
    });
  });

  describe('listTeamsForOrganizationMember', () => {
    const memberTeams = (client: QuireClient, organizationId: string, userId: string, query: Record<string, unknown> = {}) =>
      client.GET('/orgs/{organizationId}/members/{userId}/teams', { params: { path: { organizationId, userId }, query: query as never } });

    it('answers the teams of a member with their role in each, filtered by title, paged', async () => {
      const org = await organization({ writer: 'edit', guest: null });
      const ids: string[] = [];
      for (const title of ['Alpha', 'Beta', 'Gamma', 'Delta']) {
        ids.push((await unwrap(createTeam(org.admin.client, org.organizationId, { title, members: [org.people.writer!.userId] }))).id);
      }
      await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Not theirs' }));
      await unwrap(updateMembers(org.admin.client, org.organizationId, ids[1]!, { memberships: { [org.people.writer!.userId]: { role: 'owner' } } }));

      const all = await unwrap(memberTeams(org.people.writer!.client, org.organizationId, org.people.writer!.userId));
      expect(all.count).toBe(4);
      expect(all.items.map((item) => [item.team.title, item.member.role])).toEqual([['Alpha', 'member'], ['Beta', 'owner'], ['Gamma', 'member'], ['Delta', 'member']]);
      expect(all.items[1]!.team.permissions).toEqual({ admin: true, view: true });
      expect((await unwrap(memberTeams(org.admin.client, org.organizationId, org.people.writer!.userId, { title: 'TA' }))).items.map((item) => item.team.title)).toEqual(['Beta', 'Delta']);

      const seen: string[] = [];
      let page: string | undefined;
      let added = false;
      do {
        const answer = await unwrap(memberTeams(org.admin.client, org.organizationId, org.people.writer!.userId, { limit: 3, ...(page ? { page } : {}) }));
        seen.push(...answer.items.map((item) => item.team.id));
        page = answer.next?.page;
        if (!added) {
          ids.push((await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Epsilon', members: [org.people.writer!.userId] }))).id);
          added = true;
        }
      } while (page);
      expect(seen).toEqual(ids);

      const member = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: org.people.writer!.userId } } }));
      expect(member.teams).toBe(5);
    });

    it('lets a guest list only their own teams; 404 for a non-member and another organization; 401 without a token; 400 for bad parameters', async () => {
      const org = await organization({ guest: null, reader: 'read' });
      const other = await organization();
      await unwrap(createTeam(org.admin.client, org.organizationId, { title: 'Guests', members: [org.people.guest!.userId] }));
      expect((await unwrap(memberTeams(org.people.guest!.client, org.organizationId, org.people.guest!.userId))).count).toBe(1);
      expect((await memberTeams(org.people.guest!.client, org.organizationId, org.people.reader!.userId)).response.status).toBe(403);
      expect((await unwrap(memberTeams(org.people.reader!.client, org.organizationId, org.people.guest!.userId))).count).toBe(1);
      expect((await memberTeams(org.admin.client, org.organizationId, other.admin.userId)).response.status).toBe(404);
      expect((await memberTeams(other.admin.client, org.organizationId, org.people.guest!.userId)).response.status).toBe(404);
      expect((await memberTeams(server.client(), org.organizationId, org.people.guest!.userId)).response.status).toBe(401);
      expect(errorMessage(await memberTeams(org.admin.client, org.organizationId, org.people.guest!.userId, { limit: 1001 }))).toBe('query.limit must be <= 1000');
      expect(errorMessage(await memberTeams(org.admin.client, org.organizationId, org.people.guest!.userId, { title: 'x'.repeat(65) }))).toMatch(/^query\.title/);
    });
  });
});
