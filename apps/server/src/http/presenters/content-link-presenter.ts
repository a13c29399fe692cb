import type { components } from '@quire/api-types';
import type { BacklinkList, LinkEmbeds, LinkItem, LinkList, LinkTarget } from '../../services/link-service.js';
import type { ContentScope } from '../../services/space-content-service.js';
import type { LinkSource } from '../../stores/revision-link-store.js';
import { listAnswer } from '../../pagination.js';
import type { PresentContext } from './context.js';
import { presentOrganization, type ApiOrganization } from './organization-presenter.js';
import { presentPageOfRevision, presentRevision, presentRevisionFile, type ApiRevision } from './revision-presenter.js';
import { presentSpace, type ApiSpace } from './space-presenter.js';

export type ApiContentLocation = components['schemas']['ContentLocation'];
export type ApiContentReferenceUsage = components['schemas']['ContentReferenceUsage'];
export type ApiContentLinkList = components['schemas']['ContentLinkList'];
export type ApiBacklinkList = components['schemas']['BacklinkList'];

/**
 * The objects every location of one answer embeds, as the public API does (organization, space, revision),
 * presented once per answer, and what pages and files are presented from.
 */
interface Embedded {
  context: PresentContext;
  embeds: LinkEmbeds;
  organization: ApiOrganization;
  space: ApiSpace;
  revision: ApiRevision;
}

function embeddedOf(context: PresentContext, scope: ContentScope, embeds: LinkEmbeds | undefined): Embedded {
  if (!embeds) throw new Error('link answers are presented from the operations, which load what they embed');
  if (!embeds.organization) throw new Error(`the caller reads space ${scope.access.space.id} without a membership of its organization`);
  return {
    context,
    embeds,
    organization: presentOrganization(context, embeds.organization),
    space: presentSpace(context, scope.access),
    revision: presentRevision(context, embeds.revision, {}),
  };
}

function revisionContext(embedded: Embedded) {
  return {
    organization: embedded.organization,
    space: embedded.space,
    versionContext: { type: 'revision' as const, revision: embedded.revision },
  };
}

/** The page, or only its id when the revision has none (a broken link's target). */
function pageOf(embedded: Embedded, pageId: string) {
  return presentPageOfRevision(embedded.context, embedded.embeds.revision, pageId) ?? pageId;
}

function fileOf(embedded: Embedded, fileId: string) {
  const file = embedded.embeds.revision.content.files.get(fileId);
  return file ? presentRevisionFile(embedded.embeds.revision.signer, file, {}) : fileId;
}

/** A page or reusable content of the scope's revision holding a link. */
function presentLinkSource(embedded: Embedded, source: LinkSource): ApiContentLocation {
  if (source.source_kind === 'reusable-content') return { kind: 'reusable-content', ...revisionContext(embedded), reusableContent: source.source_id };
  return { kind: 'page', ...revisionContext(embedded), page: pageOf(embedded, source.source_id) };
}

/** What a link points at; pages and files are those of the same revision. */
function presentLinkTarget(embedded: Embedded, target: LinkTarget): ApiContentLocation {
  switch (target.kind) {
    case 'page':
      return { kind: 'page', ...revisionContext(embedded), page: pageOf(embedded, target.id) };
    case 'file':
      return { kind: 'file', ...revisionContext(embedded), file: fileOf(embedded, target.id) };
    case 'space':
      return { kind: 'space', organization: embedded.organization, space: embedded.space };
    case 'openapi':
      return { kind: 'openapi', organization: embedded.organization, spec: target.id };
    case 'url':
      return { kind: 'url', url: target.url };
  }
}

function presentContentReferenceUsage(embedded: Embedded, item: LinkItem): ApiContentReferenceUsage {
  return {
    status: item.status,
    relation: item.relation,
    targetReference: presentLinkTarget(embedded, item.target),
    locationReferences: item.sources.map((source) => presentLinkSource(embedded, source)),
  };
}

export function presentContentLinkList(context: PresentContext, list: LinkList): ApiContentLinkList {
  const embedded = embeddedOf(context, list.scope, list.embeds);
  return { ...listAnswer(list.page, (item) => presentContentReferenceUsage(embedded, item)), stats: list.stats };
}

export function presentBacklinkList(context: PresentContext, list: BacklinkList): ApiBacklinkList {
  const embedded = embeddedOf(context, list.scope, list.embeds);
  return listAnswer(list.page, (source) => presentLinkSource(embedded, source));
}
