import type { components } from '@quire/api-types';
import type { BacklinkList, LinkItem, LinkList, LinkTarget } from '../../services/link-service.js';
import type { ContentScope } from '../../services/space-content-service.js';
import type { LinkSource } from '../../stores/revision-link-store.js';
import { listAnswer } from '../../pagination.js';

export type ApiContentLocation = components['schemas']['ContentLocation'];
export type ApiContentReferenceUsage = components['schemas']['ContentReferenceUsage'];
export type ApiContentLinkList = components['schemas']['ContentLinkList'];
export type ApiBacklinkList = components['schemas']['BacklinkList'];

function revisionContext(scope: ContentScope) {
  return {
    organization: scope.access.space.organization_id,
    space: scope.access.space.id,
    versionContext: { type: 'revision' as const, revision: scope.revision.id },
  };
}

/** A page or reusable content of the scope's revision holding a link. */
export function presentLinkSource(scope: ContentScope, source: LinkSource): ApiContentLocation {
  if (source.source_kind === 'reusable-content') return { kind: 'reusable-content', ...revisionContext(scope), reusableContent: source.source_id };
  return { kind: 'page', ...revisionContext(scope), page: source.source_id };
}

/** What a link points at; pages and files are those of the same revision. */
export function presentLinkTarget(scope: ContentScope, target: LinkTarget): ApiContentLocation {
  switch (target.kind) {
    case 'page':
      return { kind: 'page', ...revisionContext(scope), page: target.id };
    case 'file':
      return { kind: 'file', ...revisionContext(scope), file: target.id };
    case 'space':
      return { kind: 'space', organization: scope.access.space.organization_id, space: scope.access.space.id };
    case 'openapi':
      return { kind: 'openapi', organization: scope.access.space.organization_id, spec: target.id };
    case 'url':
      return { kind: 'url', url: target.url };
  }
}

export function presentContentReferenceUsage(scope: ContentScope, item: LinkItem): ApiContentReferenceUsage {
  return {
    status: item.status,
    relation: item.relation,
    targetReference: presentLinkTarget(scope, item.target),
    locationReferences: item.sources.map((source) => presentLinkSource(scope, source)),
  };
}

export function presentContentLinkList(list: LinkList): ApiContentLinkList {
  return { ...listAnswer(list.page, (item) => presentContentReferenceUsage(list.scope, item)), stats: list.stats };
}

export function presentBacklinkList(list: BacklinkList): ApiBacklinkList {
  return listAnswer(list.page, (source) => presentLinkSource(list.scope, source));
}
