import { semanticChanges, type SemanticChange } from '../content/index.js';
import type { ServiceContext } from './context.js';
import type { Caller } from './caller.js';
import { requireChangeRequest, type ChangeRequestView } from './change-request-service.js';
import { findRevisionOfSpace, type RevisionRow } from '../stores/revision-store.js';
import type { UrlSigner } from '../storage/signed-urls.js';
import { loadRevisionContent } from './revision-content.js';
import { revisionContentScope } from './revision-service.js';
import { readRevision, requireUrlSigner, withMergedFrom, type RevisionView } from './space-content-service.js';

/*
 * What a revision changed from its first parent (getRevisionSemanticChanges), and what a change request
 * changes from the main content it is based on (getChangeRequestChanges), computed from the two trees.
 */

export interface ChangesRead {
  /** The revision the changes are from (absent for the first revision of a space) and the one they lead to. */
  beforeRevisionId?: string;
  afterRevisionId: string;
  /** At most `limit` changes, and how many more there are. */
  changes: SemanticChange[];
  more: number;
  signer: UrlSigner;
  mergedFrom?: ChangeRequestView;
}

const DEFAULT_LIMIT = 10;

/** The revision a revision was made from: its first parent, which for a merge is the main content before it. */
function firstParent(revision: RevisionRow): string | undefined {
  try {
    const parents = JSON.parse(revision.parents) as unknown;
    return Array.isArray(parents) && typeof parents[0] === 'string' ? parents[0] : undefined;
  } catch {
    return undefined;
  }
}

async function changesBetween(context: ServiceContext, spaceId: string, beforeRevisionId: string | undefined, after: RevisionRow, limit = DEFAULT_LIMIT): Promise<ChangesRead> {
  const before = beforeRevisionId === undefined ? undefined : await findRevisionOfSpace(context.db, spaceId, beforeRevisionId);
  // A revision always names revisions of its own space; anything else is corruption, not a 404.
  if (beforeRevisionId !== undefined && !before) throw new Error(`space ${spaceId} has no revision ${beforeRevisionId}`);
  const afterContent = await loadRevisionContent(context.db, after.root);
  const beforeTree = before ? (await loadRevisionContent(context.db, before.root)).tree : { pages: [], files: [], reusableContents: [] };
  const all = semanticChanges(beforeTree, afterContent.tree);
  return {
    ...(before ? { beforeRevisionId: before.id } : {}),
    afterRevisionId: after.id,
    changes: all.slice(0, limit),
    more: Math.max(0, all.length - limit),
    signer: requireUrlSigner(context),
  };
}

export async function getRevisionSemanticChanges(context: ServiceContext, caller: Caller, spaceId: string, revisionId: string, query: { limit?: number }): Promise<ChangesRead> {
  const scope = await revisionContentScope(context, caller, spaceId, revisionId);
  const view: RevisionView = await withMergedFrom(context, caller, await readRevision(context, scope));
  const read = await changesBetween(context, scope.access.space.id, firstParent(scope.revision), scope.revision, query.limit);
  return view.mergedFrom ? { ...read, mergedFrom: view.mergedFrom } : read;
}

export async function getChangeRequestChanges(context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, query: { limit?: number }): Promise<ChangesRead> {
  const { access, changeRequest } = await requireChangeRequest(context, caller, spaceId, changeRequestId);
  const after = await findRevisionOfSpace(context.db, access.space.id, changeRequest.revision_id);
  if (!after) throw new Error(`space ${access.space.id} has no revision ${changeRequest.revision_id}`);
  return changesBetween(context, access.space.id, changeRequest.revision_merged_ancestor ?? changeRequest.revision_initial, after, query.limit);
}
