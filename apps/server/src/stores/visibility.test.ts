import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, openTestDatabase } from '../../test/dialects.js';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import { createLogger } from '../logger.js';
import { membershipFromRow } from '../policies/organization-policy.js';
import { rank, ROLES, type DefaultLevel, type Role, type RoleOrGuest } from '../policies/roles.js';
import { contentRole, type ContentViewer } from '../policies/visibility-policy.js';
import { addMember, bootstrap } from '../services/admin-service.js';
import { listChangeRequests, type ChangeRequestRow } from './change-request-store.js';
import { listCollectionsInOrganization, type CollectionRow } from './collection-store.js';
import type { KeysetPage } from './keyset.js';
import { findMembership } from './organization-store.js';
import { countSpacesInOrganization, listSpacesInCollection, listSpacesInOrganization, listSpacesOfMember, type SpaceRow } from './space-store.js';

/**
 * The two forms of the visibility rule, `withContentAccess` (SQL, every list) and `contentRole` (TypeScript,
 * every read of one object), over the same organization: every default level at every depth (space,
 * collection, parent collection, grandparent collection), with roles granted to users and to a team on
 * spaces and collections at every depth, for every kind of caller. For each caller and each
 * object, being listed must be what the policy says about seeing it, with the same role.
 */

const LEVELS: DefaultLevel[] = ['inherit', null, ...ROLES];
const CALLER_ROLES: RoleOrGuest[] = [...ROLES, null];

interface Content {
  id: string;
  /** Default levels from the object outwards, as a read of that one object gathers them. */
  chain: DefaultLevel[];
  /** Ids of the object and of the collections above it, nearest first: where grants that apply to it sit. */
  path: string[];
}

/** Roles granted, per user id, per target id (a space or collection); team grants are resolved into it. */
const granted = new Map<string, Map<string, Role[]>>();

function grantsOn(userId: string, item: Content): Role[] {
  const mine = granted.get(userId);
  return mine ? item.path.flatMap((id) => mine.get(id) ?? []) : [];
}

async function allPages<Row>(fetchPage: (after: ReadonlyArray<string | number> | undefined) => Promise<KeysetPage<Row>>): Promise<Row[]> {
  const rows: Row[] = [];
  let after: ReadonlyArray<string | number> | undefined;
  do {
    const page = await fetchPage(after);
    rows.push(...page.rows);
    after = page.nextKey;
  } while (after);
  return rows;
}

/** What the policy says each caller sees of `content`: id -> role, only for what they see. */
function expectedRoles(viewer: ContentViewer, content: readonly Content[]): Map<string, string> {
  const roles = new Map<string, string>();
  for (const item of content) {
    const role = contentRole({ membership: viewer.membership, defaultLevels: item.chain, grants: grantsOn(viewer.userId, item) });
    if (role !== null) roles.set(item.id, role);
  }
  return roles;
}

const asMap = <Row>(rows: readonly Row[], entry: (row: Row) => [string, RoleOrGuest]) => new Map(rows.map(entry));

describeEachDialect('visibility: the SQL of lists agrees with the policy of single reads', (dialect) => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let organizationId: string;
  const viewers: Array<{ name: string; viewer: ContentViewer }> = [];
  const collections: Array<Content & { parentId: string | null }> = [];
  const spaces: Array<Content & { collectionId: string | null }> = [];
  let position = 0;

  /** A new collection row, remembered with its chain of levels. */
  function collectionRow(parent: Content | null, level: DefaultLevel, now: string): { row: CollectionRow; content: Content } {
    const row: CollectionRow = {
      id: newId(), organization_id: organizationId, parent_id: parent?.id ?? null, title: '', description: null,
      default_level: level, position: String(position++).padStart(6, '0'), created_at: now, updated_at: now,
    };
    const content = { id: row.id, parentId: row.parent_id, chain: [level, ...(parent?.chain ?? [])], path: [row.id, ...(parent?.path ?? [])] };
    collections.push(content);
    return { row, content };
  }

  function spaceRow(collection: Content | null, level: DefaultLevel, now: string, organization = organizationId): SpaceRow {
    return {
      id: newId(), organization_id: organization, collection_id: collection?.id ?? null, title: '', emoji: '', visibility: 'private',
      edit_mode: 'live', default_level: level, language: null, merge_rules: '{"type":"inherit"}', revision_id: newId(), git_sync: null,
      visitor_auth: null, position: String(position++).padStart(6, '0'), created_at: now, updated_at: now, deleted_at: null,
      comments_count: 0, change_requests_count: 0, change_requests_open: 0, change_requests_draft: 0,
    };
  }

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    db = database.db;
    const context = { db, dialect, logger: createLogger('silent') };
    const owner = await bootstrap(context, { organizationTitle: 'Levels', email: 'admin@example.com' });
    organizationId = owner.organizationId;
    const other = await bootstrap(context, { organizationTitle: 'Elsewhere', email: 'elsewhere@example.com' });

    // Callers: one member per role, a guest, a suspended member and someone from another organization.
    const people: Array<{ name: string; userId: string }> = [{ name: 'admin', userId: owner.userId }];
    for (const role of CALLER_ROLES.filter((role) => role !== 'admin')) {
      const { userId } = await addMember(context, { organizationId, email: `${role ?? 'guest'}@example.com`, role });
      people.push({ name: role ?? 'guest', userId });
    }
    const suspended = await addMember(context, { organizationId, email: 'suspended@example.com', role: 'edit' });
    await db.updateTable('organization_members').set({ disabled: 1 }).where('user_id', '=', suspended.userId).execute();
    people.push({ name: 'suspended', userId: suspended.userId }, { name: 'outsider', userId: other.userId });
    for (const person of people) {
      const row = await findMembership(db, organizationId, person.userId);
      viewers.push({ name: person.name, viewer: { userId: person.userId, membership: row ? membershipFromRow(row) : undefined } });
    }

    // Collections three deep: every level at the top, every level under each of those, and below each of
    // those one more collection; spaces of every level at the top and in every collection.
    const now = new Date().toISOString();
    const collectionRows: CollectionRow[] = [];
    for (const [outerIndex, outerLevel] of LEVELS.entries()) {
      const outer = collectionRow(null, outerLevel, now);
      collectionRows.push(outer.row);
      for (const [innerIndex, innerLevel] of LEVELS.entries()) {
        const inner = collectionRow(outer.content, innerLevel, now);
        const innermost = collectionRow(inner.content, LEVELS[(outerIndex + innerIndex) % LEVELS.length]!, now);
        collectionRows.push(inner.row, innermost.row);
      }
    }
    for (const row of collectionRows) await db.insertInto('collections').values(row).execute();
    const spaceRows: SpaceRow[] = [];
    for (const collection of [null, ...collections]) {
      for (const level of LEVELS) {
        const row = spaceRow(collection, level, now);
        spaceRows.push(row);
        spaces.push({ id: row.id, collectionId: row.collection_id, chain: [level, ...(collection?.chain ?? [])], path: [row.id, ...(collection?.path ?? [])] });
      }
    }
    // Neither a deleted space nor another organization's content is ever listed.
    spaceRows.push({ ...spaceRow(null, 'inherit', now), deleted_at: now });
    spaceRows.push(spaceRow(null, 'inherit', now, other.organizationId));
    for (let index = 0; index < spaceRows.length; index += 200) await db.insertInto('spaces').values(spaceRows.slice(index, index + 200)).execute();
    const changeRequests: ChangeRequestRow[] = spaceRows.map((space) => ({
      id: newId(), space_id: space.id, organization_id: space.organization_id, number: 1, status: 'open', subject: '', description: null,
      created_by: owner.userId, created_at: now, updated_at: now, revision_id: newId(), revision_initial: space.revision_id,
      revision_merged_ancestor: null, revision_merged: null, merged_at: null, merged_by: null, comments_count: 0, conversations_issues_cluster: null,
    }));
    // Grants: to users directly and to a team, on spaces and on collections at every depth, with roles
    // above and below the callers' own, so that grants raise roles, reach closed content, never lower a
    // role, and do nothing for the admin, a suspended member or an outsider.
    const byName = new Map(viewers.map(({ name, viewer }) => [name, viewer.userId]));
    const team = { id: newId(), organization_id: organizationId, title: 'Grantees', created_at: now, updated_at: now };
    await db.insertInto('teams').values(team).execute();
    for (const name of ['read', 'guest', 'suspended']) {
      await db.insertInto('team_members').values({ team_id: team.id, user_id: byName.get(name)!, role: 'member', added_at: now }).execute();
    }
    const record = (userIds: string[], targetId: string, role: Role) => {
      for (const userId of userIds) {
        const mine = granted.get(userId) ?? new Map<string, Role[]>();
        mine.set(targetId, [...(mine.get(targetId) ?? []), role]);
        granted.set(userId, mine);
      }
    };
    const teamUsers = ['read', 'guest', 'suspended'].map((name) => byName.get(name)!);
    const grant = async (target: Content, kind: 'space' | 'collection', principal: { user?: string; team?: string }, role: Role) => {
      const row = {
        principal: principal.user ? 'user' : 'team', principal_id: principal.user ?? principal.team!, user_id: principal.user ?? null,
        team_id: principal.team ?? null, role, role_rank: rank(role), created_at: now,
      };
      if (kind === 'space') await db.insertInto('space_grants').values({ ...row, space_id: target.id }).execute();
      else await db.insertInto('collection_grants').values({ ...row, collection_id: target.id }).execute();
      record(principal.user ? [principal.user] : teamUsers, target.id, role);
    };
    for (const [index, collection] of collections.entries()) {
      if (index % 5 === 0) await grant(collection, 'collection', { user: byName.get('guest')! }, ROLES[index % ROLES.length]!);
      if (index % 7 === 1) await grant(collection, 'collection', { team: team.id }, ROLES[(index + 2) % ROLES.length]!);
      if (index % 4 === 2) await grant(collection, 'collection', { user: byName.get('edit')! }, index % 8 === 2 ? 'read' : 'admin');
      if (index % 9 === 3) await grant(collection, 'collection', { user: byName.get('admin')! }, 'read');
      if (index % 6 === 5) await grant(collection, 'collection', { user: byName.get('outsider')! }, 'admin');
    }
    for (const [index, space] of spaces.entries()) {
      if (index % 11 === 0) await grant(space, 'space', { user: byName.get('guest')! }, ROLES[index % ROLES.length]!);
      if (index % 13 === 4) await grant(space, 'space', { team: team.id }, 'comment');
      if (index % 10 === 7) await grant(space, 'space', { user: byName.get('read')! }, 'review');
    }
    for (let index = 0; index < changeRequests.length; index += 200) await db.insertInto('change_requests').values(changeRequests.slice(index, index + 200)).execute();
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('covers the matrix: some of each kind of content hidden from each member, all of it shown to the admin', () => {
    expect(collections).toHaveLength(LEVELS.length * (1 + 2 * LEVELS.length));
    expect(spaces).toHaveLength(LEVELS.length * (1 + collections.length));
    for (const { name, viewer } of viewers) {
      const seen = expectedRoles(viewer, spaces).size;
      if (name === 'admin') expect(seen).toBe(spaces.length);
      else if (['suspended', 'outsider'].includes(name)) expect(seen).toBe(0);
      // A guest sees only what is granted to them or their team: some, not all.
      else if (name === 'guest') expect(seen > 0 && seen < spaces.length, name).toBe(true);
      else expect(seen > 0 && seen < spaces.length, name).toBe(true);
    }
  });

  it('lists and counts the spaces of the organization each caller may see, with their role', async () => {
    for (const { name, viewer } of viewers) {
      const expected = expectedRoles(viewer, spaces);
      const listed = await allPages((after) => listSpacesInOrganization(db, organizationId, viewer, after, 1000));
      expect(asMap(listed, (row) => [row.space.id, row.role]), name).toEqual(expected);
    }
    const counts = await countSpacesInOrganization(db, organizationId, viewers.map(({ viewer }) => viewer));
    expect(counts).toEqual(viewers.map(({ viewer }) => expectedRoles(viewer, spaces).size));
  });

  it('lists the collections each caller may see, nested or top level only, with their role', async () => {
    for (const { name, viewer } of viewers) {
      const expected = expectedRoles(viewer, collections);
      const nested = await allPages((after) => listCollectionsInOrganization(db, organizationId, { topLevelOnly: false, viewer }, after, 1000));
      expect(asMap(nested, (row) => [row.collection.id, row.role]), name).toEqual(expected);
      const topLevel = await allPages((after) => listCollectionsInOrganization(db, organizationId, { topLevelOnly: true, viewer }, after, 1000));
      expect(asMap(topLevel, (row) => [row.collection.id, row.role]), name).toEqual(expectedRoles(viewer, collections.filter((c) => c.parentId === null)));
    }
  });

  it('lists the spaces of each collection each caller may see, with their role', async () => {
    // One list per collection: the callers whose reach differs (levels resolving to a role of their own,
    // `inherit` resolving to theirs, the shortcuts) rather than all of them, to keep the suite quick.
    for (const { name, viewer } of viewers.filter((entry) => ['admin', 'edit', 'read', 'guest'].includes(entry.name))) {
      // Every other collection: each depth and level still comes up, in half the time.
      for (const collection of collections.filter((_, index) => index % 2 === 0)) {
        const expected = expectedRoles(viewer, spaces.filter((space) => space.collectionId === collection.id));
        const listed = await allPages((after) => listSpacesInCollection(db, { id: collection.id, organizationId }, viewer, after, 1000));
        expect(asMap(listed, (row) => [row.space.id, row.role]), `${name} in ${collection.chain.join('/')}`).toEqual(expected);
      }
    }
  }, 120_000);

  it('lists the change requests of the spaces each caller may see', async () => {
    for (const { name, viewer } of viewers) {
      const expected = [...expectedRoles(viewer, spaces).keys()].sort();
      const listed = await allPages((after) => listChangeRequests(db, { kind: 'organization', organizationId, viewer }, { status: 'open' }, after, 1000));
      expect(listed.map((row) => row.changeRequest.space_id).sort(), name).toEqual(expected);
    }
  });

  it("lists a member's spaces where the caller sees them too, with both roles", async () => {
    for (const member of viewers) {
      for (const caller of viewers) {
        const memberRoles = expectedRoles(member.viewer, spaces);
        const callerRoles = expectedRoles(caller.viewer, spaces);
        const expected = new Map([...memberRoles].filter(([id]) => callerRoles.has(id)).map(([id, role]) => [id, [role, callerRoles.get(id)]]));
        const listed = await allPages((after) => listSpacesOfMember(db, organizationId, { member: member.viewer, caller: caller.viewer }, after, 1000, 'desc'));
        expect(new Map(listed.map((row) => [row.space.id, [row.memberRole, row.callerRole]])), `${member.name} seen by ${caller.name}`).toEqual(expected);
      }
    }
  });
});
