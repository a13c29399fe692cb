import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect, openTestDatabase } from '../../test/dialects.js';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import { createLogger } from '../logger.js';
import { rank, type Role } from '../policies/roles.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import { addMember, bootstrap } from '../services/admin-service.js';
import type { CollectionRow } from './collection-store.js';
import type { KeysetPage } from './keyset.js';
import { cachedReach, ReachCache } from './reach-cache.js';
import { listSpacesInOrganization, type SpaceRow, type VisibleSpace } from './space-store.js';

/*
 * The kept reaches of guests (reach-cache.ts) against what they rest on: the database bumps an organization's
 * access version on every write a reach is computed from, and on no other; a kept reach is reused while the
 * version stays, computed again when it moves, and its pages are the SQL list's.
 */
describe('ReachCache', () => {
  it('drops the least recently used reaches beyond its bound, counting an empty reach as one entry', () => {
    const cache = new ReachCache(5);
    const reach = (size: number) => ({ version: 1, size: Math.max(1, size), reach: { entries: [], indexOf: new Map() } });
    cache.set('a', reach(2));
    cache.set('b', reach(2));
    expect(cache.get('a', 1)).toBeDefined();
    cache.set('c', reach(0));
    expect(cache.size).toBe(5);
    // b is now the least recently used.
    cache.set('d', reach(1));
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBeDefined();
    expect(cache.size).toBe(4);
    // Another version of a key replaces it, and a stale version is no answer.
    cache.set('a', { ...reach(3), version: 2 });
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('a', 2)).toBeDefined();
    expect(cache.size).toBe(5);
  });
});

describeEachDialect('reach cache', (dialect) => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let organizationId: string;
  let otherOrganizationId: string;
  let guest: ContentViewer;
  let ownerId: string;
  let position = 0;
  const now = new Date().toISOString();

  const versionOf = async (id: string) =>
    Number((await db.selectFrom('organizations').select('access_version').where('id', '=', id).executeTakeFirstOrThrow()).access_version);

  /** The change in each organization's version across `write`. */
  async function bumps(write: () => Promise<unknown>): Promise<[number, number]> {
    const before = [await versionOf(organizationId), await versionOf(otherOrganizationId)];
    await write();
    return [(await versionOf(organizationId)) - before[0]!, (await versionOf(otherOrganizationId)) - before[1]!];
  }

  function spaceRow(collectionId: string | null, organization = organizationId): SpaceRow {
    return {
      id: newId(), organization_id: organization, collection_id: collectionId, title: '', emoji: '', visibility: 'private',
      edit_mode: 'live', default_level: null, language: null, merge_rules: '{"type":"inherit"}', revision_id: newId(), git_sync: null,
      visitor_auth: null, position: String(position++).padStart(6, '0'), created_at: new Date(Date.parse(now) + position).toISOString(),
      updated_at: now, deleted_at: null, comments_count: 0, change_requests_count: 0, change_requests_open: 0, change_requests_draft: 0,
    };
  }
  function collectionRow(parentId: string | null, organization = organizationId): CollectionRow {
    return {
      id: newId(), organization_id: organization, parent_id: parentId, title: '', description: null, default_level: null,
      position: String(position++).padStart(6, '0'), created_at: now, updated_at: now,
    };
  }
  const grantRow = (userId: string, role: Role = 'read') => ({
    principal: 'user', principal_id: userId, user_id: userId, team_id: null, role, role_rank: rank(role), created_at: now,
  });
  const insertSpace = async (collectionId: string | null, organization = organizationId) => {
    const row = spaceRow(collectionId, organization);
    await db.insertInto('spaces').values(row).execute();
    return row;
  };
  const insertCollection = async (parentId: string | null, organization = organizationId) => {
    const row = collectionRow(parentId, organization);
    await db.insertInto('collections').values(row).execute();
    return row;
  };

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    db = database.db;
    const context = { db, dialect, logger: createLogger('silent') };
    const owner = await bootstrap(context, { organizationTitle: 'Reach', email: 'owner@example.com' });
    ownerId = owner.userId;
    organizationId = owner.organizationId;
    otherOrganizationId = (await bootstrap(context, { organizationTitle: 'Other', email: 'other@example.com' })).organizationId;
    const { userId } = await addMember(context, { organizationId, email: 'guest@example.com', role: null });
    guest = { userId, membership: { role: null, disabled: false } };
  });

  afterAll(async () => {
    await database?.drop();
  });

  describe('the access version', () => {
    it('moves with grants on spaces and collections: given, changed, removed', async () => {
      const space = await insertSpace(null);
      const collection = await insertCollection(null);
      expect(await bumps(() => db.insertInto('space_grants').values({ ...grantRow(guest.userId), space_id: space.id }).execute())).toEqual([1, 0]);
      expect(await bumps(() => db.updateTable('space_grants').set({ role: 'edit', role_rank: rank('edit') }).where('space_id', '=', space.id).execute())).toEqual([1, 0]);
      expect(await bumps(() => db.deleteFrom('space_grants').where('space_id', '=', space.id).execute())).toEqual([1, 0]);
      expect(await bumps(() => db.insertInto('collection_grants').values({ ...grantRow(guest.userId), collection_id: collection.id }).execute())).toEqual([1, 0]);
      expect(await bumps(() => db.updateTable('collection_grants').set({ role: 'admin', role_rank: rank('admin') }).where('collection_id', '=', collection.id).execute())).toEqual([1, 0]);
      expect(await bumps(() => db.deleteFrom('collection_grants').where('collection_id', '=', collection.id).execute())).toEqual([1, 0]);
    });

    it('moves with teams and their members, not with their titles or roles in the team', async () => {
      const team = { id: newId(), organization_id: organizationId, title: 'Team', created_at: now, updated_at: now };
      expect(await bumps(() => db.insertInto('teams').values(team).execute())).toEqual([0, 0]);
      expect(await bumps(() => db.insertInto('team_members').values({ team_id: team.id, user_id: guest.userId, role: 'member', added_at: now }).execute())).toEqual([1, 0]);
      expect(await bumps(() => db.updateTable('team_members').set({ role: 'owner' }).where('team_id', '=', team.id).execute())).toEqual([0, 0]);
      expect(await bumps(() => db.updateTable('teams').set({ title: 'Renamed' }).where('id', '=', team.id).execute())).toEqual([0, 0]);
      expect(await bumps(() => db.deleteFrom('team_members').where('team_id', '=', team.id).execute())).toEqual([1, 0]);
      await db.insertInto('team_members').values({ team_id: team.id, user_id: guest.userId, role: 'member', added_at: now }).execute();
      // A team deleted takes its members with it (a cascade that can no longer find the team): it bumps for them.
      const [ours] = await bumps(() => db.deleteFrom('teams').where('id', '=', team.id).execute());
      expect(ours).toBeGreaterThanOrEqual(1);
    });

    it('moves with memberships: joining, a role or suspension changed, leaving; not with a visit', async () => {
      const context = { db, dialect, logger: createLogger('silent') };
      let userId = '';
      expect(await bumps(async () => ({ userId } = await addMember(context, { organizationId, email: `${newId()}@example.com`, role: null })))).toEqual([1, 0]);
      const member = () => db.updateTable('organization_members').where('organization_id', '=', organizationId).where('user_id', '=', userId);
      expect(await bumps(() => member().set({ last_seen_at: now }).execute())).toEqual([0, 0]);
      expect(await bumps(() => member().set({ role: null }).execute())).toEqual([0, 0]);
      expect(await bumps(() => member().set({ role: 'read' }).execute())).toEqual([1, 0]);
      expect(await bumps(() => member().set({ disabled: 1 }).execute())).toEqual([1, 0]);
      expect(await bumps(() => db.deleteFrom('organization_members').where('user_id', '=', userId).execute())).toEqual([1, 0]);
    });

    it('moves with collections moved, transferred, opened or closed, deleted; not with new ones or their titles', async () => {
      const parent = await insertCollection(null);
      let collection: CollectionRow | undefined;
      expect(await bumps(async () => (collection = await insertCollection(parent.id)))).toEqual([0, 0]);
      const update = () => db.updateTable('collections').where('id', '=', collection!.id);
      expect(await bumps(() => update().set({ title: 'Renamed', position: 'zz', default_level: null }).execute())).toEqual([0, 0]);
      expect(await bumps(() => update().set({ default_level: 'read' }).execute())).toEqual([1, 0]);
      expect(await bumps(() => update().set({ parent_id: null }).execute())).toEqual([1, 0]);
      expect(await bumps(() => update().set({ organization_id: otherOrganizationId }).execute())).toEqual([1, 1]);
      expect(await bumps(() => db.deleteFrom('collections').where('id', '=', collection!.id).execute())).toEqual([0, 1]);
    });

    it('moves with spaces created, moved, transferred, opened or closed, deleted, restored or removed; not with an edit', async () => {
      const collection = await insertCollection(null);
      expect(await bumps(() => insertSpace(null))).toEqual([1, 0]);
      let space: SpaceRow | undefined;
      expect(await bumps(async () => (space = await insertSpace(collection.id)))).toEqual([1, 0]);
      const update = () => db.updateTable('spaces').where('id', '=', space!.id);
      expect(await bumps(() => update().set({ title: 'Edited', updated_at: now, comments_count: 3, collection_id: collection.id, default_level: null }).execute())).toEqual([0, 0]);
      expect(await bumps(() => update().set({ default_level: 'inherit' }).execute())).toEqual([1, 0]);
      expect(await bumps(() => update().set({ collection_id: null }).execute())).toEqual([1, 0]);
      expect(await bumps(() => update().set({ deleted_at: now }).execute())).toEqual([1, 0]);
      expect(await bumps(() => update().set({ deleted_at: null }).execute())).toEqual([1, 0]);
      expect(await bumps(() => update().set({ organization_id: otherOrganizationId }).execute())).toEqual([1, 1]);
      expect(await bumps(() => db.deleteFrom('spaces').where('id', '=', space!.id).execute())).toEqual([0, 1]);
    });
  });

  describe('a kept reach', () => {
    /** Every page of the viewer's list (the guest's unless said), `limit` at a time. */
    async function allPages(limit: number, viewer = guest): Promise<{ ids: string[]; counts: number[] }> {
      const ids: string[] = [];
      const counts: number[] = [];
      let after: ReadonlyArray<string | number> | undefined;
      do {
        const page: KeysetPage<VisibleSpace> = await listSpacesInOrganization(db, organizationId, viewer, after, limit);
        ids.push(...page.rows.map((row) => row.space.id));
        counts.push(page.count);
        after = page.nextKey;
      } while (after);
      return { ids, counts };
    }

    it('is computed once per access version, and again when the version moves', async () => {
      let computed = 0;
      const compute = async () => {
        computed += 1;
        return [{ id: 'a' }, { id: 'b' }];
      };
      const first = await cachedReach(db, 'test', organizationId, guest.userId, compute);
      expect(first?.entries).toEqual([{ id: 'a' }, { id: 'b' }]);
      expect(first?.indexOf.get('b')).toBe(1);
      await cachedReach(db, 'test', organizationId, guest.userId, compute);
      expect(computed).toBe(1);
      await db.updateTable('organizations').set((eb) => ({ access_version: eb('access_version', '+', 1) })).where('id', '=', organizationId).execute();
      await cachedReach(db, 'test', organizationId, guest.userId, compute);
      expect(computed).toBe(2);
      // Other viewers, kinds and databases' transactions keep nothing of it.
      await cachedReach(db, 'test', organizationId, ownerId, compute);
      expect(computed).toBe(3);
      expect(await db.transaction().execute((trx) => cachedReach(trx, 'test', organizationId, guest.userId, compute))).toBeUndefined();
      expect(computed).toBe(3);
    });

    it('is not kept past its bound: the caller asks the SQL, and the refusal is remembered until the version moves', async () => {
      let computed = 0;
      const compute = async (limit: number) => {
        computed += 1;
        return Array.from({ length: limit + 1 }, (_, index) => ({ id: String(index) }));
      };
      expect(await cachedReach(db, 'large', organizationId, guest.userId, compute)).toBeUndefined();
      expect(await cachedReach(db, 'large', organizationId, guest.userId, compute)).toBeUndefined();
      expect(computed).toBe(1);
    });

    it('pages as the SQL does, with the count, and follows grants given and removed at the next request', async () => {
      const collection = await insertCollection(null);
      const spaces = [await insertSpace(collection.id), await insertSpace(null), await insertSpace(collection.id), await insertSpace(null), await insertSpace(null)];
      const before = await allPages(2);
      await db.insertInto('collection_grants').values({ ...grantRow(guest.userId), collection_id: collection.id }).execute();
      await db.insertInto('space_grants').values([spaces[1]!, spaces[3]!].map((space) => ({ ...grantRow(guest.userId), space_id: space.id }))).execute();
      const granted = spaces.filter((_, index) => index !== 4).map((space) => space.id);
      expect(await allPages(2)).toEqual({ ids: [...before.ids, ...granted], counts: Array(Math.ceil((before.ids.length + 4) / 2)).fill(before.ids.length + 4) });
      expect((await allPages(100)).ids).toEqual([...before.ids, ...granted]);

      // A space added to the granted collection is reached at once; one deleted is gone at once.
      const added = await insertSpace(collection.id);
      expect((await allPages(3)).ids).toEqual([...before.ids, ...granted, added.id]);
      await db.updateTable('spaces').set({ deleted_at: now }).where('id', '=', spaces[2]!.id).execute();
      expect((await allPages(3)).ids).toEqual([...before.ids, ...granted.filter((id) => id !== spaces[2]!.id), added.id]);
    });

    it("follows a member's default levels at the next request", async () => {
      const context = { db, dialect, logger: createLogger('silent') };
      const { userId } = await addMember(context, { organizationId, email: 'reader@example.com', role: 'read' });
      const reader: ContentViewer = { userId, membership: { role: 'read', disabled: false } };
      const collection = await insertCollection(null);
      const spaces = [await insertSpace(null), await insertSpace(collection.id)];
      // Test spaces start closed (default level null); open one, then its collection for the other.
      const visible = () => allPages(2, reader).then(({ ids }) => ids.filter((id) => spaces.some((space) => space.id === id)));
      expect(await visible()).toEqual([]);
      await db.updateTable('spaces').set({ default_level: 'inherit' }).where('id', 'in', spaces.map((space) => space.id)).execute();
      expect(await visible()).toEqual([spaces[0]!.id]);
      await db.updateTable('collections').set({ default_level: 'inherit' }).where('id', '=', collection.id).execute();
      expect(await visible()).toEqual(spaces.map((space) => space.id));
      await db.updateTable('spaces').set({ default_level: null }).where('id', '=', spaces[0]!.id).execute();
      expect(await visible()).toEqual([spaces[1]!.id]);
      const page = await listSpacesInOrganization(db, organizationId, reader, undefined, 1000);
      expect(page.rows.find((row) => row.space.id === spaces[1]!.id)?.role).toBe('read');
    });

    it("continues after a cursor whose space is no longer reached, as the SQL compares it", async () => {
      const spaces = [await insertSpace(null), await insertSpace(null), await insertSpace(null)];
      await db.insertInto('space_grants').values(spaces.map((space) => ({ ...grantRow(guest.userId), space_id: space.id }))).execute();
      const all = (await allPages(100)).ids;
      const index = all.indexOf(spaces[1]!.id);
      const firstPage = await listSpacesInOrganization(db, organizationId, guest, undefined, index + 1);
      expect(firstPage.rows.at(-1)?.space.id).toBe(spaces[1]!.id);
      await db.deleteFrom('space_grants').where('space_id', '=', spaces[1]!.id).execute();
      const next = await listSpacesInOrganization(db, organizationId, guest, firstPage.nextKey, 100);
      expect(next.rows.map((row) => row.space.id)).toEqual(all.slice(index + 1));
      expect(next.count).toBe(all.length - 1);
    });
  });
});
