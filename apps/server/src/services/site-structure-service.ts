import { BadRequestError, NotFoundError } from '../errors.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { withManagedSite } from './site-access.js';
import type { StructureItemView } from './site-section-service.js';
import { oneSide, placeSectionOrGroup, placeSiteSpace, type PlacedKind } from './site-structure-moves.js';
import { siteSpaceView, requireSiteSpace, type SiteSpaceView } from './site-space-service.js';
import { loadStructure, memberSiteView, structureFor, type SiteStructure } from './site-structure.js';

/*
 * The structure of a docs site as one tree (getSiteStructure) and the move of any item in it
 * (sortSiteStructure). Moves hold the site's lock (withManagedSite), so parallel moves are applied one after
 * the other, none lost, and the order they leave is one that the moves one after the other would leave.
 */

export async function getSiteStructure(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { shareKey?: string }): Promise<SiteStructure> {
  const view = await memberSiteView(context, caller, organizationId, siteId, query.shareKey);
  return loadStructure(context, view, organizationId);
}

type ItemPointer = { type: 'site-space' | PlacedKind; id: string };

export type MovedItem = { type: 'site-space'; view: SiteSpaceView } | { type: PlacedKind; view: StructureItemView };

export async function sortSiteStructure(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  body: { item: ItemPointer; position: { before?: ItemPointer; after?: ItemPointer } },
): Promise<MovedItem> {
  const { pointer, before } = oneSide(body.position);
  const { item } = body;
  if (pointer && (item.type === 'site-space') !== (pointer.type === 'site-space')) {
    throw new BadRequestError('body.position: a site space goes only before or after a site space, a section or group only before or after a section or group');
  }
  return withManagedSite(context, caller, organizationId, siteId, async (tx, _site, who): Promise<MovedItem> => {
    if (item.type === 'site-space') {
      const siteSpace = await requireSiteSpace(tx, siteId, item.id);
      await placeSiteSpace(tx, siteId, siteSpace, pointer?.id, before);
      return { type: 'site-space', view: await siteSpaceView(tx, who, organizationId, siteId, siteSpace.id) };
    }
    const structure = await structureFor(tx, who, organizationId, siteId);
    const rows: ReadonlyArray<{ id: string }> = item.type === 'site-section' ? structure.sections : structure.groups;
    if (!rows.some((row) => row.id === item.id)) throw new NotFoundError(`The site has no ${item.type} with this id`);
    const target = pointer ? { kind: pointer.type as PlacedKind, id: pointer.id } : undefined;
    await placeSectionOrGroup(tx, structure, { kind: item.type, id: item.id }, target, before, { sameLevel: false });
    return { type: item.type, view: { id: item.id, structure: await structureFor(tx, who, organizationId, siteId) } };
  });
}
