import { NotFoundError } from '../errors.js';
import type { Caller } from './caller.js';
import { getChangeRequestById, type ChangeRequestView } from './change-request-service.js';
import { getCollectionById, type CollectionWithRole, type SpaceWithRole } from './collection-service.js';
import type { ServiceContext } from './context.js';
import { changeRequestContentScope, mainContentScope, readRevision, type RevisionView } from './space-content-service.js';

/*
 * What an address of the app points at (getContentByUrl). The http layer reads the address (it owns the
 * form of `urls.app`) into a `ContentAddress`; here each part is looked up as the caller sees it. Whatever
 * is missing, in another organization than the address says, or hidden from the caller answers 404, alike.
 */

/** A page named by an app address: by its path in the content, or by id (link entries have no path). */
export type PageAddress = { path: string } | { id: string };

/** The content an app address names. */
export type ContentAddress =
  | { kind: 'collection'; organizationId: string; collectionId: string }
  | { kind: 'space'; organizationId: string; spaceId: string; changeRequest?: string; page?: PageAddress };

export type ContentAtAddress =
  | { collection: CollectionWithRole }
  | { space: SpaceWithRole; changeRequest?: ChangeRequestView; page?: { view: RevisionView; pageId: string } };

function nothingThere(): NotFoundError {
  return new NotFoundError('The address names nothing this caller can see');
}

export async function getContentByUrl(context: ServiceContext, caller: Caller, address: ContentAddress): Promise<ContentAtAddress> {
  try {
    if (address.kind === 'collection') {
      const collection = await getCollectionById(context, caller, address.collectionId);
      if (collection.collection.organization_id !== address.organizationId) throw nothingThere();
      return { collection };
    }
    const scope = address.changeRequest === undefined
      ? await mainContentScope(context, caller, address.spaceId)
      : await changeRequestContentScope(context, caller, address.spaceId, address.changeRequest);
    if (scope.access.space.organization_id !== address.organizationId) throw nothingThere();
    const changeRequest = address.changeRequest === undefined ? undefined : await getChangeRequestById(context, caller, address.spaceId, address.changeRequest);
    const page = address.page === undefined ? undefined : await pageAt(context, scope, address.page);
    return { space: scope.access, ...(changeRequest ? { changeRequest } : {}), ...(page ? { page } : {}) };
  } catch (error) {
    // Every refusal reads as one: an address is not a way to learn which ids exist.
    if (error instanceof NotFoundError) throw nothingThere();
    throw error;
  }
}

/** The document or group page the address names; a link entry of the table of contents is not content. */
async function pageAt(context: ServiceContext, scope: Parameters<typeof readRevision>[1], address: PageAddress): Promise<{ view: RevisionView; pageId: string }> {
  const view = await readRevision(context, scope);
  const page = 'path' in address ? view.content.byPath.get(address.path) : view.content.pages.get(address.id)?.page;
  if (!page || page.type === 'link') throw nothingThere();
  return { view, pageId: page.id };
}
