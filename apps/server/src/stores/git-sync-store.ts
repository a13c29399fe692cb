import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { GitSyncOperationsTable, GitSyncStatesTable } from '../db/schema.js';

export type GitSyncStateRow = Selectable<GitSyncStatesTable>;
export type GitSyncOperationRow = Selectable<GitSyncOperationsTable>;

/**
 * What `spaces.git_sync` holds (as JSON): the space's state row and its latest operation, as stored here, so
 * that a space read presents `gitSync` without another query.
 */
export interface SpaceGitSyncCopy {
  state: GitSyncStateRow;
  operation: GitSyncOperationRow | null;
}

export async function findGitSyncState(db: Db, spaceId: string): Promise<GitSyncStateRow | undefined> {
  return db.selectFrom('git_sync_states').selectAll().where('space_id', '=', spaceId).executeTakeFirst();
}

/** Creates the space's state row, or replaces every column of it. */
export async function saveGitSyncState(db: Db, row: GitSyncStateRow): Promise<void> {
  const { space_id: _spaceId, ...columns } = row;
  await db.insertInto('git_sync_states').values(row)
    .onConflict((conflict) => conflict.column('space_id').doUpdateSet(columns))
    .execute();
}

export async function insertGitSyncOperation(db: Db, row: GitSyncOperationRow): Promise<void> {
  await db.insertInto('git_sync_operations').values(row).execute();
}

export async function findGitSyncOperation(db: Db, id: string): Promise<GitSyncOperationRow | undefined> {
  return db.selectFrom('git_sync_operations').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Ends a running operation. Only a running one: a job attempt that lost its lease and runs on must not
 * overwrite the outcome another attempt recorded. Answers whether this call ended it.
 */
export async function finishGitSyncOperation(
  db: Db,
  id: string,
  outcome: Pick<GitSyncOperationRow, 'state' | 'ended_at'> & Partial<Pick<GitSyncOperationRow, 'error' | 'commit_oid' | 'revision_id'>>,
): Promise<boolean> {
  const result = await db.updateTable('git_sync_operations').set(outcome)
    .where('id', '=', id)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteGitSyncState(db: Db, spaceId: string): Promise<void> {
  await db.deleteFrom('git_sync_states').where('space_id', '=', spaceId).execute();
}

/** Changes some columns of the space's state row; nothing when the space has none (it was unlinked). */
export async function updateGitSyncState(db: Db, spaceId: string, patch: Partial<Omit<GitSyncStateRow, 'space_id'>>): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await db.updateTable('git_sync_states').set(patch).where('space_id', '=', spaceId).execute();
}
