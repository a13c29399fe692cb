import type { TreeWriter } from '#server/content/index.js';
import type { Db } from '#server/db/index.js';
import { newId, nowIso } from '#server/ids.js';
import { putObjects } from '#server/stores/content-object-store.js';
import { insertRevision } from '#server/stores/revision-store.js';
import { findSpaceById, setSpaceMainRevision } from '#server/stores/space-store.js';

/**
 * Makes `root` (committed with `writer`) the space's main revision, as a write moving main does, minus the
 * job queue: storing the new objects, a revision row on top of the current main, and the move, in one
 * transaction. Benches and tests of layers below the API build large trees this way. Answers the revision id.
 */
export async function commitMainRevision(db: Db, spaceId: string, userId: string, writer: TreeWriter, root: string): Promise<string> {
  const revisionId = newId();
  await db.transaction().execute(async (trx) => {
    const space = await findSpaceById(trx, spaceId);
    if (!space) throw new Error(`no space ${spaceId}`);
    await putObjects(trx, writer.collect(root));
    const now = nowIso();
    await insertRevision(trx, {
      id: revisionId, space_id: spaceId, type: 'edits', parents: JSON.stringify([space.revision_id]), root, created_at: now, created_by: userId, git: null, change_request_id: null,
    });
    await setSpaceMainRevision(trx, spaceId, revisionId, now);
  });
  return revisionId;
}
