import type { components } from '@quire/api-types';
import type { MaterializedFile, MaterializedPage, PageAttribute, SemanticChange } from '../../content/index.js';
import type { ChangesRead } from '../../services/semantic-changes-service.js';
import { documentIdOf } from '../../services/space-content-service.js';
import type { UrlSigner } from '../../storage/signed-urls.js';
import { presentChangeRequest } from './change-request-presenter.js';
import type { PresentContext } from './context.js';
import { completeLayout, presentRevisionFile, shownPageType, type ContentPresentOptions } from './revision-presenter.js';

type ApiChanges = components['schemas']['RevisionSemanticChanges'];
type ApiChange = components['schemas']['RevisionSemanticChange'];
type ApiChangedPage = components['schemas']['ChangedRevisionPage'];
type ApiChangedFile = components['schemas']['ChangedRevisionFile'];
type ApiChangeAttribute = components['schemas']['ChangeAttribute'];

function changedPage(page: MaterializedPage, options: ContentPresentOptions): ApiChangedPage {
  return { id: page.id, type: shownPageType(page.type, options), title: page.title, ...(page.path !== undefined ? { path: page.path } : {}) };
}

function changedFile(signer: UrlSigner, file: MaterializedFile): ApiChangedFile {
  const { id, name, contentType, downloadURL } = presentRevisionFile(signer, file, { metadata: false });
  return { id, name, contentType, downloadURL };
}

/** Both sides of a change; a side without a value is left out. */
function beforeAfter(before: unknown, after: unknown): ApiChangeAttribute {
  return { ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
}

/**
 * A page field as the public API shows it in a change: the content as the id of its document in each
 * revision, complete layouts, covers with their offset, and a link's `href` as its `target`.
 */
function attributeValue(page: MaterializedPage, attribute: PageAttribute, revisionId: string | undefined): [string, unknown] {
  switch (attribute) {
    case 'document':
      return ['document', revisionId !== undefined && (page.type === 'document' || page.type === 'computed') ? documentIdOf(revisionId, page.id) : undefined];
    case 'layout':
      return ['layout', page.type === 'document' || page.type === 'computed' ? completeLayout(page.layout) : undefined];
    case 'cover':
      return ['cover', page.cover ? { ...page.cover, yPos: page.cover.yPos ?? 0 } : undefined];
    case 'href':
      return ['target', page.href === undefined ? undefined : { kind: 'url', url: page.href }];
    default:
      return [attribute, page[attribute]];
  }
}

function presentChange(change: SemanticChange, read: ChangesRead, options: ContentPresentOptions): ApiChange {
  switch (change.type) {
    case 'page_created':
    case 'page_deleted':
      return { type: change.type, page: changedPage(change.page, options) };
    case 'page_edited': {
      const attributes: Record<string, ApiChangeAttribute> = {};
      for (const attribute of change.attributes) {
        const [name, before] = attributeValue(change.before, attribute, read.beforeRevisionId);
        attributes[name] = beforeAfter(before, attributeValue(change.page, attribute, read.afterRevisionId)[1]);
      }
      return { type: 'page_edited', page: changedPage(change.page, options), attributes };
    }
    case 'page_moved':
      return {
        type: 'page_moved',
        page: changedPage(change.page, options),
        parent: {
          ...(change.parentBefore ? { before: changedPage(change.parentBefore, options) } : {}),
          ...(change.parentAfter ? { after: changedPage(change.parentAfter, options) } : {}),
        },
      };
    case 'file_created':
    case 'file_deleted':
      return { type: change.type, file: changedFile(read.signer, change.file) };
    case 'file_edited': {
      const attributes: Record<string, ApiChangeAttribute> = {};
      for (const attribute of change.attributes) {
        attributes[attribute === 'blob' ? 'downloadURL' : attribute] = attribute === 'blob'
          ? beforeAfter(changedFile(read.signer, change.before).downloadURL, changedFile(read.signer, change.file).downloadURL)
          : beforeAfter(change.before[attribute], change.file[attribute]);
      }
      return { type: 'file_edited', file: changedFile(read.signer, change.file), attributes };
    }
  }
}

export function presentSemanticChanges(context: PresentContext, read: ChangesRead, options: ContentPresentOptions): ApiChanges {
  return {
    changes: read.changes.map((change) => presentChange(change, read, options)),
    ...(read.more > 0 ? { more: read.more } : {}),
    ...(read.mergedFrom ? { mergedFrom: presentChangeRequest(context, read.mergedFrom) } : {}),
  };
}
