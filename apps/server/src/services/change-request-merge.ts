import type { ChangeRequestConflict } from '@quire/api-types';
import { mergeTrees, TreeWriter } from '../content/index.js';
import type { Db } from '../db/index.js';
import { addChangeRequestContributor, lockChangeRequest, lockSpaceMainRevision, updateChangeRequestRow, type ChangeRequestRow } from '../stores/change-request-store.js';
import { putObjects } from '../stores/content-object-store.js';
import { adjustSpaceCounters, setSpaceMainRevision } from '../stores/space-store.js';
import { ForbiddenError } from '../errors.js';
import { mergeRefusalMessage } from '../policies/merge-rule-policy.js';
import type { SpaceRow } from '../stores/space-store.js';
import type { Caller } from './caller.js';
import { changeRequestGone, insertChangeRequestRevision, refuseIfMerged, requireChangeRequest, statusCounterChange } from './change-request-service.js';
import type { ServiceContext } from './context.js';
import { judgeChangeRequest } from './change-request-rules.js';
import { planThenWrite } from './plan-then-write.js';
import { contentReader, revisionRoot } from './revision-content.js';
import { enqueueSearchReindex } from './search-reindex.js';
import { assertSpacePermission, requireSpace } from './space-access.js';

/*
 * Merging a change request into main, and updating a request from main: both are the three-way merge of
 * content/merge.ts with base = where the request last caught up with main, ours = the request, theirs =
 * main, so conflicts are reported as the request shows the pages. The merge is planned before the
 * transaction and written only if none of its three revisions moved meanwhile (plan-then-write.ts).
 */

/** The three revisions (by id) a merge combines: what it rests on. */
interface MergeInputs {
  base: string;
  ours: string;
  theirs: string;
}

type PlannedMerge = { writer: TreeWriter } & ({ ok: true; root: string } | { ok: false; conflicts: ChangeRequestConflict[] });

/** The main revision the request last caught up with: where it started, or its last update from main. */
function ancestorOf(changeRequest: ChangeRequestRow): string {
  return changeRequest.revision_merged_ancestor ?? changeRequest.revision_initial;
}

function mergeInputs(changeRequest: ChangeRequestRow, main: string): MergeInputs {
  return { base: ancestorOf(changeRequest), ours: changeRequest.revision_id, theirs: main };
}

function sameInputs(a: MergeInputs, b: MergeInputs): boolean {
  return a.base === b.base && a.ours === b.ours && a.theirs === b.theirs;
}

/** The three-way merge of three revisions of the space. */
async function planMerge(db: Db, spaceId: string, inputs: MergeInputs): Promise<PlannedMerge> {
  const [base, ours, theirs] = await Promise.all([revisionRoot(db, spaceId, inputs.base), revisionRoot(db, spaceId, inputs.ours), revisionRoot(db, spaceId, inputs.theirs)]);
  const writer = new TreeWriter(contentReader(db));
  const merged = await mergeTrees(writer, { base, ours, theirs });
  if (!merged.ok) return { writer, ok: false, conflicts: merged.conflicts };
  // Every revision has a tree (an empty space has an empty root), so neither side is ever null here.
  if (merged.root === null) throw new Error('a merge of three trees answered no tree');
  return { writer, ok: true, root: merged.root };
}

/** Writes the objects of a clean merge and the revision (a `merge` of main or an `update` of the request) over them. */
async function writeMergedRevision(
  trx: Db,
  caller: Caller,
  changeRequest: ChangeRequestRow,
  plan: PlannedMerge & { ok: true },
  revision: { type: 'merge' | 'update'; parents: string[] },
): Promise<{ revisionId: string; now: string }> {
  await putObjects(trx, plan.writer.collect(plan.root));
  return insertChangeRequestRevision(trx, caller, changeRequest, { ...revision, root: plan.root });
}

/** 403 naming every unmet merge rule, unless they all pass or the caller may bypass them. */
async function assertMergeRules(context: ServiceContext, caller: Caller, space: SpaceRow, changeRequest: ChangeRequestRow, main: string): Promise<void> {
  const verdict = await judgeChangeRequest(context, caller, space, changeRequest, main);
  if (!verdict.mergeable) throw new ForbiddenError(mergeRefusalMessage(verdict.unmetRules));
}

export type MergeOutcome =
  | { result: 'merge'; revision: string }
  | { result: 'conflicts'; revision: string; conflicts: ChangeRequestConflict[] };

/**
 * Merges the request into the space's main content. Clean: a `merge` revision becomes main, the request is
 * `merged`, and the search index is queued for a refresh. Conflicts: nothing changes and the answer lists them.
 */
export async function mergeChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, idOrNumber: string): Promise<MergeOutcome> {
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber);
  assertSpacePermission(found.access, 'merge');
  refuseIfMerged(found.changeRequest);
  // Checked before the merge is planned, and again under the locks below, where it decides.
  await assertMergeRules(context, caller, found.space, found.changeRequest, found.space.revision_id);

  return planThenWrite(context, {
    basis: mergeInputs(found.changeRequest, found.space.revision_id),
    plan: (inputs) => planMerge(context.db, found.space.id, inputs),
    lock: async (tx) => {
      const access = await requireSpace(tx, caller, spaceId);
      assertSpacePermission(access, 'merge');
      const current = await lockChangeRequest(tx.db, context.dialect, found.changeRequest.id);
      if (!current) throw changeRequestGone();
      refuseIfMerged(current);
      // Main must not move between the check and the write, or a merge landing meanwhile would be lost.
      const main = await lockSpaceMainRevision(tx.db, context.dialect, current.space_id);
      if (main === undefined) throw changeRequestGone();
      await assertMergeRules(tx, caller, access.space, current, main);
      return { basis: mergeInputs(current, main), current, main };
    },
    sameBasis: sameInputs,
    write: async (tx, plan, { current, main }): Promise<MergeOutcome> => {
      if (!plan.ok) return { result: 'conflicts', revision: main, conflicts: plan.conflicts };
      const { revisionId, now } = await writeMergedRevision(tx.db, caller, current, plan, { type: 'merge', parents: [main, current.revision_id] });
      await setSpaceMainRevision(tx.db, current.space_id, revisionId, now);
      await updateChangeRequestRow(tx.db, current.id, { status: 'merged', revision_merged: revisionId, merged_at: now, merged_by: caller.user.id, updated_at: now });
      await adjustSpaceCounters(tx.db, current.space_id, statusCounterChange(current.status, 'merged'));
      await enqueueSearchReindex(tx.db, current.space_id);
      return { result: 'merge', revision: revisionId };
    },
    basisName: `Change request #${found.changeRequest.number} or the main content`,
  });
}

export type UpdateOutcome =
  | { result: 'update'; revision: string }
  | { result: 'conflicts'; revision: string; conflicts: ChangeRequestConflict[] };

/**
 * Brings what changed on main since the request last caught up into the request, its own edits kept on
 * top, written as an `update` revision of the request. A request already up to date is left as it is.
 */
export async function updateChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, idOrNumber: string): Promise<UpdateOutcome> {
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber, { need: 'edit' });
  refuseIfMerged(found.changeRequest);
  const upToDate = (inputs: MergeInputs) => inputs.base === inputs.theirs;

  return planThenWrite(context, {
    basis: mergeInputs(found.changeRequest, found.space.revision_id),
    plan: async (inputs) => (upToDate(inputs) ? undefined : planMerge(context.db, found.space.id, inputs)),
    lock: async (tx) => {
      const again = await requireChangeRequest(tx, caller, spaceId, found.changeRequest.id, { need: 'edit' });
      const current = await lockChangeRequest(tx.db, context.dialect, again.changeRequest.id);
      if (!current) throw changeRequestGone();
      refuseIfMerged(current);
      // Main is read, not locked: the update writes only the request, on top of the main revision it merged.
      const main = again.space.revision_id;
      return { basis: mergeInputs(current, main), current, main };
    },
    // Up to date is up to date whatever the request's own revision: there is nothing to merge either way.
    sameBasis: (a, b) => (upToDate(a) && upToDate(b)) || sameInputs(a, b),
    write: async (tx, plan, { current, main }): Promise<UpdateOutcome> => {
      if (!plan) return { result: 'update', revision: current.revision_id };
      if (!plan.ok) return { result: 'conflicts', revision: current.revision_id, conflicts: plan.conflicts };
      const { revisionId, now } = await writeMergedRevision(tx.db, caller, current, plan, { type: 'update', parents: [current.revision_id, main] });
      await updateChangeRequestRow(tx.db, current.id, { revision_id: revisionId, revision_merged_ancestor: main, updated_at: now });
      await addChangeRequestContributor(tx.db, current.id, caller.user.id);
      return { result: 'update', revision: revisionId };
    },
    basisName: `Change request #${found.changeRequest.number} or the main content`,
  });
}
