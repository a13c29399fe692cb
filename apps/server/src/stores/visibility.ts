import { sql, type SelectQueryBuilder } from 'kysely';
import { ROLES } from '../policies/roles.js';
import { organizationReach, type ContentViewer, type OrganizationReach } from '../policies/visibility-policy.js';

/**
 * The only SQL form of who sees which collections and spaces, and with which role: every list that shows
 * content by what the caller may see goes through `withContentAccess`. It is `contentRole` of
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
 * Where grants plug in (roles granted on a space or collection to users and teams): the recursion carries,
 * per collection, the highest role granted on it or its parents to the viewer or their teams (one more
 * column, a join on the grants of `viewer.userId`), the space adds its own grants, and `roleText` takes the
 * highest of those and the role through default levels (for `granted-only` viewers, the grants alone).
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

/**
 * Each collection of the organization with its resolved default level: a role, `inherit` or null. Written
 * as SQL text rather than built node by node: this runs in every list of a member, and building and
 * compiling a Kysely query costs about as much as running it on SQLite.
 */
function resolvedCollectionLevels(organizationId: string) {
  return sql`(with recursive resolved_levels(id, level) as (
    select id, default_level from collections where organization_id = ${organizationId} and parent_id is null
    union all
    select child.id, case when child.default_level = 'inherit' then parent.level else child.default_level end
      from collections child inner join resolved_levels parent on parent.id = child.parent_id
  ) select id, level from resolved_levels)`.as(LEVELS);
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

const ROLE_LIST = ROLES.map((role) => `'${role}'`).join(', ');

/**
 * The viewer's role on each row, and the condition that keeps only the rows they see (undefined: all), as
 * SQL text. The role is one of ROLES and the level's text is ours: nothing from a request goes into it.
 */
function roleText(reach: OrganizationReach, content: ContentTable): { role: string; visible: string | undefined } {
  switch (reach.kind) {
    case 'everything':
      return { role: "'admin'", visible: undefined };
    case 'nothing':
    case 'granted-only':
      return { role: 'null', visible: '1 = 0' };
    case 'default-levels': {
      // `inherit` all the way up is the member's organization role; a role is itself; null (or anything
      // unknown) closes the content. So the role is not null exactly when the level is one of the first two.
      const level = resolvedLevelText(content);
      return {
        role: `case when ${level} = 'inherit' then '${reach.role}' when ${level} in (${ROLE_LIST}) then ${level} end`,
        visible: `${level} in ('inherit', ${ROLE_LIST})`,
      };
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
  if (reaches.some((reach) => reach.kind === 'default-levels')) {
    const joinedOn = 'collections' in options.content ? `${options.content.collections}.id` : `${options.content.spaces}.collection_id`;
    extended = extended.leftJoin(resolvedCollectionLevels(options.organizationId), (join) => join.onRef(`${LEVELS}.id`, '=', joinedOn));
  }
  const conditions = new Set<string>();
  for (const [index, { roleAs, filter }] of options.viewers.entries()) {
    const { role, visible } = roleText(reaches[index]!, options.content);
    if (visible !== undefined && filter !== false) conditions.add(visible);
    if (roleAs !== undefined) extended = extended.select(sql.raw<string | null>(role).as(roleAs));
  }
  // Viewers whose conditions read the same (members of different roles see the same content) filter once.
  for (const condition of conditions) extended = extended.where(sql.raw<boolean>(condition));
  return extended as SelectQueryBuilder<DB, TB, O & { [K in Column]: string | null }>;
}
