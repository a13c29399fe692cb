import type { components } from '@quire/api-types';
import type { MaterializedReusable } from '../../content/index.js';
import { reusableDocumentIdOf, type ReusableRead } from '../../services/reusable-content-service.js';
import type { ContentPresentOptions } from './revision-presenter.js';

export type ApiRevisionReusableContent = components['schemas']['RevisionReusableContent'];

/** A reusable content of the revision `revisionId`, without its body; `metadata` false leaves out `git`. */
export function presentReusableContentShape(revisionId: string, reusable: MaterializedReusable, options: ContentPresentOptions): ApiRevisionReusableContent {
  return {
    id: reusable.id,
    title: reusable.title,
    ...(reusable.contentHash === null ? {} : { document: reusableDocumentIdOf(revisionId, reusable.id) }),
    ...(reusable.git && options.metadata !== false ? { git: reusable.git } : {}),
  };
}

/** One reusable content read on its own: with its body as Markdown. */
export function presentReusableContent(read: ReusableRead, options: ContentPresentOptions): ApiRevisionReusableContent {
  return { ...presentReusableContentShape(read.view.scope.revision.id, read.reusable, options), markdown: read.markdown };
}
