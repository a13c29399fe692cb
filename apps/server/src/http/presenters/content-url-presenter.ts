import type { components } from '@quire/api-types';
import type { ContentAtAddress } from '../../services/content-url-service.js';
import { presentChangeRequest } from './change-request-presenter.js';
import { presentCollection } from './collection-presenter.js';
import type { PresentContext } from './context.js';
import { presentPageOfRevision } from './revision-presenter.js';
import { presentSpace } from './space-presenter.js';

export type ApiContentAtUrl = components['schemas']['ContentAtUrl'];

/** What an app address points at: the collection, or the space with the change request and page it names. */
export function presentContentAtUrl(context: PresentContext, found: ContentAtAddress): ApiContentAtUrl {
  if ('collection' in found) return { collection: presentCollection(context, found.collection) };
  const page = found.page ? presentPageOfRevision(context, found.page.view, found.page.pageId) : undefined;
  return {
    space: presentSpace(context, found.space),
    ...(found.changeRequest ? { changeRequest: presentChangeRequest(context, found.changeRequest) } : {}),
    ...(page ? { page } : {}),
  };
}
