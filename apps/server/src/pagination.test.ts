import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeEachDialect, openTestDatabase } from '../test/dialects.js';
import { newId } from './ids.js';
import { insertOrganization, listOrganizationsOfUser, upsertMembership } from './stores/organization-store.js';
import { insertUser } from './stores/user-store.js';
import { decodeCursor, encodeCursor, listAnswer, pageRequest } from './pagination.js';
import { BadRequestError } from './errors.js';

describe('cursors', () => {
  it('round-trip and are opaque url-safe text', () => {
    const cursor = encodeCursor(['2024-01-01T00:00:00.000Z', 'abc']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 2)).toEqual(['2024-01-01T00:00:00.000Z', 'abc']);
  });

  it('refuse what we did not make with a 400', () => {
    for (const bad of ['%%%', encodeCursor(['only-one']), Buffer.from('{"a":1}').toString('base64url'), Buffer.from('not json').toString('base64url'), encodeCursor([{} as never, 'x'])]) {
      expect(() => decodeCursor(bad, 2)).toThrow(BadRequestError);
    }
  });

  it('default the limit to 50 and omit next on the last page', () => {
    expect(pageRequest({}, 2)).toEqual({ after: undefined, limit: 50 });
    expect(listAnswer({ rows: [1], count: 1 }, String)).toEqual({ count: 1, items: ['1'] });
    expect(listAnswer({ rows: [1], count: 2, nextKey: ['k'] }, String).next).toEqual({ page: encodeCursor(['k']) });
  });
});

describeEachDialect('keyset pagination', (dialect) => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeEach(async () => {
    database = await openTestDatabase(dialect);
  });
  afterEach(async () => {
    await database.drop();
  });

  it('never repeats or skips existing rows when rows are inserted between pages', async () => {
    const db = database.db;
    const user = await insertUser(db, { id: newId(), email: `p-${newId(6)}@example.com`, display_name: 'P', photo_url: null, created_at: new Date().toISOString() });
    const base = Date.parse('2024-01-01T00:00:00.000Z');
    let sequence = 0;
    const addOrganization = async (createdAt: number) => {
      const id = newId();
      await insertOrganization(db, {
        id, title: `org ${sequence++}`, created_at: new Date(createdAt).toISOString(), email_domains: '[]', hostname: null, type: 'business', use_case: null,
        community_type: null, default_role: null, default_site_id: null, sso: 0, ai: 0, invite_links: 0, merge_rules: '{"type":"none"}', custom_hostname: null, logo_url: null,
      });
      await upsertMembership(db, { organization_id: id, user_id: user.id, role: 'read', joined_at: new Date().toISOString(), last_seen_at: null, sso: 0, disabled: 0 });
      return id;
    };
    // Several rows share a timestamp, so the id must break ties.
    const existing = [];
    for (let index = 0; index < 10; index++) existing.push(await addOrganization(base + Math.floor(index / 3) * 1000));

    const seen: string[] = [];
    let after: Array<string | number> | undefined;
    let pages = 0;
    do {
      const page = await listOrganizationsOfUser(db, user.id, after, 3);
      seen.push(...page.rows.map((row) => row.organization.id));
      after = page.nextKey;
      pages++;
      // Rows inserted before, inside and after the part already read.
      await addOrganization(base - 1000);
      await addOrganization(base + 1000);
      await addOrganization(base + 100_000 + pages);
    } while (after && pages < 50);

    expect(new Set(seen).size).toBe(seen.length);
    for (const id of existing) expect(seen.filter((value) => value === id)).toHaveLength(1);
  });

  it('counts every matching row, not only the page', async () => {
    const db = database.db;
    const user = await insertUser(db, { id: newId(), email: `c-${newId(6)}@example.com`, display_name: 'C', photo_url: null, created_at: new Date().toISOString() });
    for (let index = 0; index < 4; index++) {
      const id = newId();
      await insertOrganization(db, {
        id, title: `o${index}`, created_at: new Date(Date.now() + index).toISOString(), email_domains: '[]', hostname: null, type: 'business', use_case: null,
        community_type: null, default_role: null, default_site_id: null, sso: 0, ai: 0, invite_links: 0, merge_rules: '{"type":"none"}', custom_hostname: null, logo_url: null,
      });
      await upsertMembership(db, { organization_id: id, user_id: user.id, role: 'read', joined_at: new Date().toISOString(), last_seen_at: null, sso: 0, disabled: index === 3 ? 1 : 0 });
    }
    const page = await listOrganizationsOfUser(db, user.id, undefined, 2);
    expect(page.count).toBe(3);
    expect(page.rows).toHaveLength(2);
    expect(page.nextKey).toBeDefined();
  });
});
