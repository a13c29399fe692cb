import type { Kysely } from 'kysely';

/*
 * The revisions of a change request by their author: the contributors of a change request
 * (getContributorsByChangeRequestId) count each person's revisions of it, which without this index would read
 * every revision of the space.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('revisions_change_request_author').on('revisions').columns(['change_request_id', 'created_by']).execute();
}
