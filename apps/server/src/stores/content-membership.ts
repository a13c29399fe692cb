import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { Database } from '../db/schema.js';
import { prepared } from './prepared.js';

/** The caller's membership in the organization of a collection or space, when they have one. */
export interface MembershipState {
  role: string | null;
  disabled: number;
}

/** The tables of content a member reaches through their organization. */
type ContentTable = 'collections' | 'spaces';

/** What the lookup reads of either table: the row's id and the organization that holds it. */
interface OrganizationContent {
  id: string;
  organization_id: string;
}

/**
 * Finds a row of the table by id with the user's membership in its organization, in one lookup (every
 * collection and space request starts with one): undefined when there is no such row, `membership`
 * undefined when the user is not a member. Prepared once per table.
 */
export function contentWithMembership<Table extends ContentTable>(table: Table) {
  // Typed as the columns both tables share: Kysely cannot type one query over either table.
  const query = prepared((db: Db, id: string, userId: string) => db.withTables<{ content: OrganizationContent }>()
    .selectFrom(`${table} as o` as 'content as o')
    .leftJoin('organization_members as m', (join) => join.onRef('m.organization_id', '=', 'o.organization_id').on('m.user_id', '=', userId))
    .selectAll('o')
    .select(['m.role as member_role', 'm.disabled as member_disabled', 'm.user_id as member_user_id'])
    .where('o.id', '=', id));
  return async (db: Db, id: string, userId: string): Promise<{ row: Selectable<Database[Table]>; membership: MembershipState | undefined } | undefined> => {
    const [found] = await query(db, id, userId);
    if (!found) return undefined;
    const { member_role, member_disabled, member_user_id, ...row } = found;
    return { row: row as Selectable<Database[Table]>, membership: member_user_id === null ? undefined : { role: member_role, disabled: member_disabled ?? 0 } };
  };
}
