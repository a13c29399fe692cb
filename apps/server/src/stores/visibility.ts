import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Db } from '../db/index.js';
import { rank, ROLES } from '../policies/roles.js';
import { organizationReach, type ContentViewer, type OrganizationReach } from '../policies/visibility-policy.js';

/**
 * The only SQL form of who sees which collections and spaces, and with which role: every list that shows
 * content by what the caller may see goes through `withContentAccess` (or `visibleSpacesFrom`, the same rule
 * for the list of one viewer's spaces, which starts a guest's rows from their grants). It is `contentRole` of
 * `policies/visibility-policy.ts` (the TypeScript form, for reads of one object) as a condition and a
 * column; `visibility.test.ts` runs both over every combination of roles and levels and requires them to
 * agree.
 *
 * How it computes: one recursive query resolves the default level of every collection of the organization
 * from the top down (its own level, or its parent's resolved level when it inherits; `inherit` all the way
 * up means the organization role), a space takes its own level or, when it inherits, its collection's; the
 * caller's organization reach (see `organizationReach`: the admin/guest shortcut) turns that level into a
 * role. Collections are few next to spaces, and the recursion reads them once per statement.
 *
 * Grants (roles granted on a space or collection to users and teams): for members, the recursion carries,
 * per collection and per viewer, the highest rank granted on it or its parents to the viewer or their teams;
 * a space adds its own grants (one derived table per viewer), and `roleText` takes the highest of those and
 * the rank through default levels.
 *
 * Guests (`granted-only`) see nothing but what is granted, so their rows start from their grants instead:
 * one derived table per guest holds exactly the content they reach (what is granted to them or their teams,
 * and everything below a granted collection, found by walking down from it) with the highest rank, joined
 * to the listed rows (an inner join when it filters). A guest's list then reads as many rows as they see,
 * through the grant and parent indexes, instead of every space of the organization: measured with
 * `npm run bench` (a guest seeing 100 of 1,000 spaces), that scan made their list 2.4 times slower than the
 * admin's. The list of a guest's spaces across the organization goes one step further: space-store.ts keeps
 * what this SQL answers for them (reach-cache.ts, valid while the organization's access version stays), so
 * a page reads only its own rows.
 */

/** The table of the query whose rows are being decided, under its alias there (`{ spaces: 's' }`). */
export type ContentTable = { spaces: string } | { collections: string };

export interface ContentAccessOptions<Column extends string> {
  /** The organization whose content the query lists (its collections are what the levels come from). */
  organizationId: string;
  content: ContentTable;
  /**
   * A row stays only when every viewer can see it (a member's spaces are listed only where the caller sees
   * them too), except for viewers with `filter: false`; a viewer with `roleAs` gets their role on each row
   * in that column (null where they cannot see it).
   */
  viewers: ReadonlyArray<{ viewer: ContentViewer; roleAs?: Column; filter?: false }>;
}

/** Alias of the resolved collection levels in the queries this module extends. */
const LEVELS = 'content_levels';

/** The grant rank column of viewer `index` (highest rank granted to them on a collection or its parents). */
const grantColumn = (index: number) => `g_${index}`;
/** Alias of viewer `index`'s highest grant rank per space. */
const spaceGrantAlias = (index: number) => `space_grants_${index}`;

/**
 * The highest rank granted to the user or to one of their teams on each target of `table`, as a derived
 * table `(target_id, r)`.
 */
function grantRanks(table: 'space_grants' | 'collection_grants', userId: string) {
  const target = table === 'space_grants' ? sql.raw('space_id') : sql.raw('collection_id');
  // Two indexed lookups on (principal_id, target) rather than one `or`, which would read every grant.
  return sql`(select target_id, max(r) as r from (
      select ${target} as target_id, role_rank as r from ${sql.raw(table)} where principal = 'user' and principal_id = ${userId}
      union all
      select g.${target}, g.role_rank from ${sql.raw(table)} g inner join team_members tm on tm.team_id = g.principal_id
        where g.principal = 'team' and tm.user_id = ${userId}
    ) viewer_grants group by target_id)`;
}

/** Alias of the content a guest (viewer `index`) reaches through grants, with the highest rank: `(target_id, r)`. */
const guestAccessAlias = (index: number) => `guest_access_${index}`;

/**
 * Everything of the organization a guest reaches through grants, as a derived table `(target_id, r)` of the
 * highest rank on each: the collections granted to them or their teams and every collection below those
 * (walked down from the grants, so a guest's lists read only what was granted), and for a list of spaces, the
 * spaces granted to them plus the spaces directly in any of those collections.
 */
function guestAccess(content: ContentTable, organizationId: string, userId: string) {
  // Cross joins read the grants first and walk down from them (SQLite keeps the written order of a cross join).
  const tree = sql`with recursive granted_collections as ${grantRanks('collection_grants', userId)},
    granted_tree(id, r) as (
      select c.id, gc.r from granted_collections gc cross join collections c where c.id = gc.target_id and c.organization_id = ${organizationId}
      union all
      select child.id, parent.r from granted_tree parent cross join collections child where child.parent_id = parent.id
    )`;
  if ('collections' in content) return sql`(${tree} select id as target_id, max(r) as r from granted_tree group by id)`;
  return sql`(${tree} select target_id, max(r) as r from (
      select target_id, r from ${grantRanks('space_grants', userId)} granted_spaces
      union all
      select s.id, t.r from granted_tree t cross join spaces s where s.collection_id = t.id
    ) reached group by target_id)`;
}

/** SQL text of the larger of two integer expressions (no `greatest` in SQLite, no two-argument `max` in PostgreSQL). */
const larger = (a: string, b: string) => `(case when ${a} > ${b} then ${a} else ${b} end)`;

/**
 * Each collection of the organization with its resolved default level (a role, `inherit` or null) and, per
 * viewer whose grants count, the highest rank granted to them on it or on a collection above it. Written as
 * SQL text rather than built node by node: this runs in every list of a member, and building and compiling
 * a Kysely query costs about as much as running it on SQLite.
 */
function resolvedCollectionLevels(organizationId: string, grantViewers: ReadonlyArray<{ index: number; userId: string }>) {
  const columns = grantViewers.map(({ index }) => `, ${grantColumn(index)}`).join('');
  const ranks = grantViewers.map(({ index, userId }) => sql`cg_${sql.raw(String(index))} as ${grantRanks('collection_grants', userId)}, `);
  const joinsOf = (alias: string) => sql.join(grantViewers.map(({ index }) => sql.raw(`left join cg_${index} on cg_${index}.target_id = ${alias}.id`)), sql.raw(' '));
  const anchor = grantViewers.map(({ index }) => `, coalesce(cg_${index}.r, 0)`).join('');
  const step = grantViewers.map(({ index }) => `, ${larger(`coalesce(cg_${index}.r, 0)`, `parent.${grantColumn(index)}`)}`).join('');
  return sql`(with recursive ${sql.join(ranks, sql.raw(''))}resolved_levels(id, level${sql.raw(columns)}) as (
    select c.id, c.default_level${sql.raw(anchor)} from collections c ${joinsOf('c')} where c.organization_id = ${organizationId} and c.parent_id is null
    union all
    select child.id, case when child.default_level = 'inherit' then parent.level else child.default_level end${sql.raw(step)}
      from collections child inner join resolved_levels parent on parent.id = child.parent_id ${joinsOf('child')}
  ) select id, level${sql.raw(columns)} from resolved_levels)`.as(LEVELS);
}

/** Aliases go into SQL text: only plain names, which the stores write themselves. */
function checkedAlias(alias: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`not a plain SQL alias: ${alias}`);
  return alias;
}

/**
 * The resolved default level of the content rows, as SQL text. A space inherits its collection's level; one
 * whose collection is not among the organization's (there is none at the top level) hangs from the
 * organization.
 */
function resolvedLevelText(content: ContentTable): string {
  if ('collections' in content) return `${LEVELS}.level`;
  const space = checkedAlias(content.spaces);
  return `(case when ${space}.default_level = 'inherit' and ${LEVELS}.id is not null then ${LEVELS}.level else ${space}.default_level end)`;
}

/** The highest rank granted to viewer `index` on the rows (on the row itself, or a collection above it), as SQL text. */
function grantedRankText(content: ContentTable, index: number): string {
  const throughCollections = `coalesce(${LEVELS}.${grantColumn(index)}, 0)`;
  if ('collections' in content) return throughCollections;
  return larger(throughCollections, `coalesce(${spaceGrantAlias(index)}.r, 0)`);
}

/** Rank of each role, as in policies/roles.ts: read 1 ... admin 6 (0 for none). */
const RANKED_ROLES = [...ROLES].reverse();
const rankOfText = (expression: string) => `(case ${expression} ${RANKED_ROLES.map((role) => `when '${role}' then ${rank(role)}`).join(' ')} else 0 end)`;
const roleOfRankText = (expression: string) => `(case ${expression} ${RANKED_ROLES.map((role) => `when ${rank(role)} then '${role}'`).join(' ')} end)`;

/**
 * The viewer's role on each row, and the condition that keeps only the rows they see (undefined: all), as
 * SQL text: the highest of the role through default levels (members) and the roles granted (everyone in the
 * organization). The role is one of ROLES and the level's text is ours: nothing from a request goes into it.
 */
function roleText(reach: OrganizationReach, content: ContentTable, index: number): { role: string; visible: string | undefined } {
  switch (reach.kind) {
    case 'everything':
      return { role: "'admin'", visible: undefined };
    case 'nothing':
      return { role: 'null', visible: '1 = 0' };
    case 'granted-only': {
      const granted = `coalesce(${guestAccessAlias(index)}.r, 0)`;
      return { role: roleOfRankText(granted), visible: `${granted} > 0` };
    }
    case 'default-levels': {
      // `inherit` all the way up is the member's organization role; a role is itself; null (or anything
      // unknown) closes the content (rank 0). Grants can only raise that.
      const level = resolvedLevelText(content);
      const throughLevels = `(case when ${level} = 'inherit' then ${rank(reach.role)} else ${rankOfText(level)} end)`;
      const total = larger(throughLevels, grantedRankText(content, index));
      return { role: roleOfRankText(total), visible: `${total} > 0` };
    }
  }
}

/**
 * Narrows a query over spaces or collections to what the viewers may see, and selects the roles asked for.
 * Joins the resolved collection levels only when some viewer's reach depends on them.
 */
export function withContentAccess<DB, TB extends keyof DB, O, Column extends string = never>(
  query: SelectQueryBuilder<DB, TB, O>,
  options: ContentAccessOptions<Column>,
): SelectQueryBuilder<DB, TB, O & { [K in Column]: string | null }> {
  // The joined table and the selected columns are not in DB's types; the callers' row types say what comes out.
  let extended = query as unknown as SelectQueryBuilder<any, any, any>;
  const reaches = options.viewers.map(({ viewer }) => organizationReach(viewer.membership));
  // Grants count for members and guests; admins see everything and outsiders nothing whatever is granted.
  const indexed = options.viewers.map(({ viewer, filter }, index) => ({ index, userId: viewer.userId, kind: reaches[index]!.kind, filter }));
  const grantViewers = indexed.filter(({ kind }) => kind === 'default-levels');
  for (const { index, userId, filter } of indexed.filter(({ kind }) => kind === 'granted-only')) {
    const alias = guestAccessAlias(index);
    const rowId = 'collections' in options.content ? `${checkedAlias(options.content.collections)}.id` : `${checkedAlias(options.content.spaces)}.id`;
    const table = guestAccess(options.content, options.organizationId, userId).as(alias);
    // Filtering by it, an inner join: the rows then come from the guest's grants, not from a scan of the organization.
    extended = filter === false
      ? extended.leftJoin(table, (join) => join.onRef(`${alias}.target_id`, '=', rowId))
      : extended.innerJoin(table, (join) => join.onRef(`${alias}.target_id`, '=', rowId));
  }
  if (grantViewers.length > 0) {
    const joinedOn = 'collections' in options.content ? `${options.content.collections}.id` : `${options.content.spaces}.collection_id`;
    extended = extended.leftJoin(resolvedCollectionLevels(options.organizationId, grantViewers), (join) => join.onRef(`${LEVELS}.id`, '=', joinedOn));
    if ('spaces' in options.content) {
      const space = checkedAlias(options.content.spaces);
      for (const { index, userId } of grantViewers) {
        extended = extended.leftJoin(grantRanks('space_grants', userId).as(spaceGrantAlias(index)), (join) => join.onRef(`${spaceGrantAlias(index)}.target_id`, '=', `${space}.id`));
      }
    }
  }
  const conditions = new Set<string>();
  for (const [index, { roleAs, filter }] of options.viewers.entries()) {
    const { role, visible } = roleText(reaches[index]!, options.content, index);
    if (visible !== undefined && filter !== false) conditions.add(visible);
    if (roleAs !== undefined) extended = extended.select(sql.raw<string | null>(role).as(roleAs));
  }
  // Viewers whose conditions read the same (members of different roles see the same content) filter once.
  for (const condition of conditions) extended = extended.where(sql.raw<boolean>(condition));
  return extended as SelectQueryBuilder<DB, TB, O & { [K in Column]: string | null }>;
}

/** A query over `spaces as s`, as `db.selectFrom('spaces as s')` types it. */
export type SpacesQuery<O> = SelectQueryBuilder<Database & { s: Database['spaces'] }, 's', O>;

/**
 * The spaces of the organization one viewer sees, with their role on each in `roleAs`: `withContentAccess`
 * over `spaces as s`, except that a guest's rows start from what they reach through grants. The cross join
 * keeps that order on SQLite, whose planner (without statistics, which nothing gathers there) takes the
 * organization's index of spaces for the cheaper way to an ordered page and reads every space of the
 * organization to keep the few granted; PostgreSQL plans a cross join with a condition like an inner join,
 * from its own statistics. Callers add the organization or collection and the rest of their conditions.
 */
export function visibleSpacesFrom<Column extends string>(
  db: Db,
  organizationId: string,
  viewer: ContentViewer,
  roleAs: Column,
): SpacesQuery<{ [K in Column]: string | null }> {
  if (organizationReach(viewer.membership).kind !== 'granted-only') {
    return withContentAccess(db.selectFrom('spaces as s'), { organizationId, content: { spaces: 's' }, viewers: [{ viewer, roleAs }] }) as never;
  }
  const alias = guestAccessAlias(0);
  const { role } = roleText({ kind: 'granted-only' }, { spaces: 's' }, 0);
  // The joined table is not in Database's types; the return type says what comes out.
  return (db as unknown as Kysely<any>)
    .selectFrom(guestAccess({ spaces: 's' }, organizationId, viewer.userId).as(alias))
    .crossJoin('spaces as s')
    .where(sql<boolean>`s.id = ${sql.ref(`${alias}.target_id`)}`)
    .select(sql.raw<string | null>(role).as(roleAs)) as never;
}
