import type { ContentPointer, ContentPosition } from '@quire/api-types';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import type { OrganizationMembership } from '../policies/organization-policy.js';
import { parseDefaultLevel, type DefaultLevel } from '../policies/roles.js';
import { canViewContent, contentRole } from '../policies/visibility-policy.js';
import { findCollectionById, findLastSibling, findNeighbourSibling, type Sibling } from '../stores/collection-store.js';
import { findSpaceById } from '../stores/space-store.js';
import type { ServiceContext } from './context.js';
import { positionBetween } from './position-keys.js';

/**
 * Where a collection or space goes among its siblings (the collections and live spaces under the same
 * parent, which share one order). Runs inside the transaction that holds the organization's structure lock,
 * so the neighbours it reads are still the neighbours when the row is written.
 */
export interface PlacementRequest {
  organizationId: string;
  /** The destination parent collection, or null for the top level. */
  parentId: string | null;
  /** Default levels of the destination collection and its ancestors (nearest first); empty at the top level. */
  parentChain: readonly DefaultLevel[];
  membership: OrganizationMembership | undefined;
  /** The item being moved; absent when a new item is placed. */
  item?: { type: 'collection' | 'space'; id: string; parentId: string | null; position: string };
  position?: ContentPosition | undefined;
  /** Field path of `position` in the request, for error messages. */
  field?: string;
}

function pointerId(pointer: ContentPointer): { type: 'collection' | 'space'; id: string } {
  return pointer.type === 'space' ? { type: 'space', id: pointer.space } : { type: 'collection', id: pointer.collection };
}

/** Loads a pointed sibling; answers it as a sibling entry, or throws 404/400. */
async function resolvePointer(context: ServiceContext, request: PlacementRequest, pointer: ContentPointer, field: string): Promise<Sibling> {
  const { type, id } = pointerId(pointer);
  const missing = new NotFoundError(`No ${type} matches ${field}.${type}`);
  if (request.item && request.item.type === type && request.item.id === id) {
    throw new BadRequestError(`${field} names the ${type} being moved; it must name one of its siblings`);
  }
  const row = type === 'space' ? await findSpaceById(context.db, id) : await findCollectionById(context.db, id);
  if (!row || row.organization_id !== request.organizationId || ('deleted_at' in row && row.deleted_at !== null)) throw missing;
  const siblingUnderDestination = ('collection_id' in row ? row.collection_id : row.parent_id) === request.parentId;
  // Something elsewhere in the organization is judged by its own level only: enough to tell "not visible"
  // (404) from "not a sibling" (400) without loading the collections around it.
  const defaultLevels = [parseDefaultLevel(row.default_level), ...(siblingUnderDestination ? request.parentChain : [])];
  // Grants are not read here: a sibling the caller sees only through a grant answers 404 rather than 400,
  // and either way the move is refused.
  if (!canViewContent(contentRole({ membership: request.membership, defaultLevels, grants: [] }))) throw missing;
  if (!siblingUnderDestination) throw new BadRequestError(`${field} must name a sibling under the destination parent`);
  return { type, id, position: row.position };
}

/**
 * The position key for the item at the requested place: just before `before`, just after `after`, between
 * both when both are given (they must then be next to each other), or last. Throws 409 when a moved item
 * would stay exactly where it is.
 */
export async function placeAmongSiblings(context: ServiceContext, request: PlacementRequest): Promise<string> {
  const field = request.field ?? 'body.position';
  const scope = { organizationId: request.organizationId, parentId: request.parentId, ...(request.item ? { excludeId: request.item.id } : {}) };
  const before = request.position?.before ? await resolvePointer(context, request, request.position.before, `${field}.before`) : undefined;
  const after = request.position?.after ? await resolvePointer(context, request, request.position.after, `${field}.after`) : undefined;

  let lower: Sibling | undefined;
  let upper: Sibling | undefined;
  if (before && after) {
    const next = await findNeighbourSibling(context.db, scope, after.position, 'after');
    if (next?.id !== before.id || next.type !== before.type) {
      throw new BadRequestError(`${field}.after and ${field}.before must name siblings that are next to each other, after first`);
    }
    lower = after;
    upper = before;
  } else if (before) {
    lower = await findNeighbourSibling(context.db, scope, before.position, 'before');
    upper = before;
  } else if (after) {
    lower = after;
    upper = await findNeighbourSibling(context.db, scope, after.position, 'after');
  } else {
    lower = await findLastSibling(context.db, scope);
  }

  const item = request.item;
  if (item && item.parentId === request.parentId
    && (lower === undefined || lower.position < item.position)
    && (upper === undefined || item.position < upper.position)) {
    throw new ConflictError(`The ${item.type} is already at this place`);
  }
  return positionBetween(lower?.position ?? null, upper?.position ?? null);
}
