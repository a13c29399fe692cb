import type { Kysely } from 'kysely';

/*
 * `spaces.git_sync` held the presented `gitSync` object; it now holds the space's Git sync state row and its
 * latest operation row as stored (`SpaceGitSyncCopy` in stores/git-sync-store.ts), presented when read.
 * Rebuilds every copy from the two tables, which were always written in the same transactions. One pass
 * over the synchronized spaces, which are few next to the others.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.updateTable('spaces').set({ git_sync: null }).where('git_sync', 'is not', null).execute();
  const states = await db.selectFrom('git_sync_states').selectAll().execute();
  for (const state of states) {
    const operation = state.operation_id
      ? await db.selectFrom('git_sync_operations').selectAll().where('id', '=', state.operation_id).executeTakeFirst()
      : undefined;
    await db.updateTable('spaces')
      .set({ git_sync: JSON.stringify({ state, operation: operation ?? null }) })
      .where('id', '=', state.space_id)
      .execute();
  }
}
