import type { AnyHandler, Handlers, OperationId } from '../registry.js';
import type { HandlerDeps } from './deps.js';

export type { HandlerDeps } from './deps.js';

/*
 * Every handler group (one `<resource>-handlers.ts` per resource) and the operations it answers. A group's
 * module, with the services, stores and presenters under it, is loaded on the first request for one of its
 * operations or by `warm()` once the server listens, not before: loading all of them (some 300 modules) was
 * about a third of the time from process start to the first answer, which needs one group. Which operations
 * exist must be known before that (routes, validators, 501 for the rest), hence the lists; a group whose
 * handlers differ from its list is refused when it loads, and handlers/index.test.ts loads every group and
 * compares. A family adds its group here.
 */

type Group = (deps: HandlerDeps) => Handlers;

export interface GroupEntry {
  load: () => Promise<Group>;
  operations: readonly OperationId[];
}

function group(load: () => Promise<Group>, operations: readonly OperationId[]): GroupEntry {
  return { load, operations };
}

export const HANDLER_GROUPS: readonly GroupEntry[] = [
  group(async () => (await import('./organization-handlers.js')).organizationHandlers, [
    'getAuthenticatedUser', 'listOrganizationsForAuthenticatedUser', 'getOrganizationById',
    'getOrganizationsForEmailDomain', 'searchOrganizationContent', 'updateOrganizationById',
  ]),
  group(async () => (await import('./user-handlers.js')).userHandlers, [
    'getUserById', 'updateUserById',
  ]),
  group(async () => (await import('./organization-invite-handlers.js')).organizationInviteHandlers, [
    'inviteUsersToOrganization', 'listPendingOrganizationInvites', 'listOrganizationInviteLinks',
    'createOrganizationInvite', 'getOrganizationInviteLink', 'updateOrganizationInviteById',
    'deleteOrganizationInviteById', 'joinOrganizationWithInvite', 'joinOrganization', 'previewOrganizationInvite',
    'acceptOrganizationInvite',
  ]),
  group(async () => (await import('./sign-in-handlers.js')).signInHandlers, [
    'signIn', 'signOut', 'getCurrentSession', 'listUserSessions', 'deleteUserSession', 'deleteUserSessions',
    'updateUserPassword', 'startTotpEnrollment', 'confirmTotpEnrollment', 'disableTotp',
  ]),
  group(async () => (await import('./collection-handlers.js')).collectionHandlers, [
    'listCollectionsInOrganizationById', 'createCollection', 'getCollectionById', 'updateCollectionById',
    'deleteCollectionById', 'listSpacesInCollectionById', 'moveCollection', 'transferCollection',
  ]),
  group(async () => (await import('./space-handlers.js')).spaceHandlers, [
    'listSpacesInOrganizationById', 'createSpace', 'getSpaceById', 'updateSpaceById', 'deleteSpaceById',
    'restoreSpace', 'duplicateSpace', 'moveSpace', 'transferSpace',
  ]),
  group(async () => (await import('./space-content-handlers.js')).spaceContentHandlers, [
    'getCurrentRevision', 'getRevisionOfChangeRequestById', 'getComputedDocument', 'getComputedRevision',
    'getSpacePDF', 'listPages', 'listPagesInChangeRequest', 'getPageById', 'getPageInChangeRequestById', 'listFiles',
    'listFilesInChangeRequestById', 'getFileById', 'getFileInChangeRequestById', 'applyTemplateToSpace',
    'searchSpaceContent',
  ]),
  group(async () => (await import('./revision-handlers.js')).revisionHandlers, [
    'getRevisionById', 'listPagesInRevisionById', 'listFilesInRevisionById', 'getFileInRevisionById',
    'getPageInRevisionById', 'getPageDocumentInRevisionById', 'getPageInRevisionByPath', 'getPageByPath',
    'getPageInChangeRequestByPath', 'getRevisionSemanticChanges', 'getChangeRequestChanges', 'getDocumentById',
  ]),
  group(async () => (await import('./reusable-content-handlers.js')).reusableContentHandlers, [
    'getReusableContentById', 'getReusableContentInRevisionById', 'getReusableContentDocumentInRevisionById',
    'getReusableContentInChangeRequestById',
  ]),
  group(async () => (await import('./link-handlers.js')).linkHandlers, [
    'listSpaceLinks', 'listChangeRequestLinks', 'listPageLinksInSpace', 'listPageLinksInChangeRequest',
    'listSpacePageBacklinks', 'listSpaceFileBacklinks', 'listChangeRequestPageBacklinks',
    'listChangeRequestFileBacklinks',
  ]),
  group(async () => (await import('./member-handlers.js')).memberHandlers, [
    'listMembersInOrganizationById', 'getMemberInOrganizationById', 'updateMemberInOrganizationById',
    'removeMemberFromOrganizationById', 'setUserAsSSOMemberForOrganization', 'listSpacesForOrganizationMember',
    'updateOrganizationMemberLastSeenAt',
  ]),
  group(async () => (await import('./team-handlers.js')).teamHandlers, [
    'listTeamsInOrganizationById', 'createOrganizationTeam', 'getTeamInOrganizationById',
    'updateTeamInOrganizationById', 'removeTeamFromOrganizationById', 'listTeamMembersInOrganizationById',
    'updateMembersInOrganizationTeam', 'addMemberToOrganizationTeamById', 'deleteMemberFromOrganizationTeamById',
    'listTeamsForOrganizationMember',
  ]),
  group(async () => (await import('./change-request-handlers.js')).changeRequestHandlers, [
    'listChangeRequestsForSpace', 'listChangeRequestsForOrganization', 'createChangeRequest', 'getChangeRequestById',
    'updateChangeRequestById', 'updateChangeRequestContent', 'mergeChangeRequest', 'updateChangeRequest',
    'getRequestedReviewersByChangeRequestId', 'requestReviewersForChangeRequest',
    'removeRequestedReviewerFromChangeRequest', 'getReviewsByChangeRequestId', 'submitChangeRequestReview',
    'getChangeRequestReviewById', 'getChangeRequestPDF',
  ]),
  group(async () => (await import('./git-sync-handlers.js')).gitSyncHandlers, [
    'importGitRepository', 'exportToGitRepository', 'getSpaceGitInfo', 'deleteLegacyGitInstallation',
  ]),
  group(async () => (await import('./comment-handlers.js')).commentHandlers, [
    'listCommentsInSpace', 'postCommentInSpace', 'getCommentInSpace', 'updateCommentInSpace', 'deleteCommentInSpace',
    'listCommentersInSpace',
  ]),
  group(async () => (await import('./comment-reply-handlers.js')).commentReplyHandlers, [
    'listCommentRepliesInSpace', 'postCommentReplyInSpace', 'getCommentReplyInSpace', 'updateCommentReplyInSpace',
    'deleteCommentReplyInSpace',
  ]),
  group(async () => (await import('./change-request-discussion-handlers.js')).changeRequestDiscussionHandlers, [
    'listCommentsInChangeRequest', 'postCommentInChangeRequest', 'getCommentInChangeRequest',
    'updateCommentInChangeRequest', 'deleteCommentInChangeRequest', 'listCommentersInChangeRequest',
    'listCommentRepliesInChangeRequest', 'postCommentReplyInChangeRequest', 'getCommentReplyInChangeRequest',
    'updateCommentReplyInChangeRequest', 'deleteCommentReplyInChangeRequest', 'getContributorsByChangeRequestId',
  ]),
  group(async () => (await import('./conversation-handlers.js')).conversationHandlers, [
    'ingestConversation', 'listConversations', 'getConversationById', 'listConversationsIssues',
    'getConversationIssueById', 'listConversationsIssuesClusters', 'getConversationsIssuesCluster',
  ]),
  group(async () => (await import('./glossary-handlers.js')).glossaryHandlers, [
    'listGlossaryEntries', 'getGlossaryEntry', 'updateGlossaryEntries',
  ]),
  group(async () => (await import('./integration-handlers.js')).integrationHandlers, [
    'listIntegrations', 'getIntegrationByName', 'publishIntegration', 'unpublishIntegration',
  ]),
  group(async () => (await import('./saml-handlers.js')).samlHandlers, [
    'listSAMLProvidersInOrganizationById', 'createOrganizationSAMLProvider', 'getOrganizationSAMLProviderById',
    'updateOrganizationSAMLProvider', 'deleteOrganizationSAMLProvider', 'listSSOProviderLoginsInOrganization',
    'exchangeCliAuthCode',
  ]),
  group(async () => (await import('./sign-in-provider-handlers.js')).signInProviderHandlers, [
    'listSignInProviders',
  ]),
  group(async () => (await import('./openapi-spec-handlers.js')).openApiSpecHandlers, [
    'listOpenAPISpecs', 'createOpenAPISpec', 'getOpenAPISpecBySlug', 'createOrUpdateOpenAPISpecBySlug',
    'updateOpenAPISpecBySlug', 'deleteOpenAPISpecBySlug', 'listOpenAPISpecVersions', 'getLatestOpenAPISpecVersion',
    'getOpenAPISpecVersionById', 'getLatestOpenAPISpecVersionContent', 'getOpenAPISpecVersionContentById',
  ]),
  group(async () => (await import('./site-handlers.js')).siteHandlers, [
    'listSites', 'createSite', 'getSiteById', 'updateSiteById', 'deleteSiteById', 'publishSite', 'unpublishSite',
  ]),
  group(async () => (await import('./site-space-handlers.js')).siteSpaceHandlers, [
    'listSiteSpaces', 'addSpaceToSite', 'updateSiteSpaceById', 'deleteSiteSpaceById', 'moveSiteSpace',
  ]),
  group(async () => (await import('./site-section-handlers.js')).siteSectionHandlers, [
    'listSiteSections', 'addSectionToSite', 'updateSiteSectionById', 'moveSiteSection', 'deleteSiteSectionById',
    'listSiteSectionGroups', 'addSectionGroupToSite', 'updateSiteSectionGroupById', 'deleteSiteSectionGroupById',
    'moveSiteSectionGroup', 'addSectionToGroup', 'removeSectionFromGroup',
  ]),
  group(async () => (await import('./site-structure-handlers.js')).siteStructureHandlers, [
    'getSiteStructure', 'sortSiteStructure',
  ]),
  group(async () => (await import('./site-publishing-auth-handlers.js')).sitePublishingAuthHandlers, [
    'getSitePublishingAuthById', 'updateSitePublishingAuthById', 'regenerateSitePublishingAuthById',
  ]),
  group(async () => (await import('./site-preview-handlers.js')).sitePreviewHandlers, [
    'getSitePublishingPreviewById',
  ]),
  group(async () => (await import('./site-search-handlers.js')).siteSearchHandlers, [
    'searchSiteContent',
  ]),
  group(async () => (await import('./site-share-link-handlers.js')).siteShareLinkHandlers, [
    'listSiteShareLinks', 'createSiteShareLink', 'updateSiteShareLinkById', 'deleteSiteShareLinkById',
  ]),
  group(async () => (await import('./site-redirect-handlers.js')).siteRedirectHandlers, [
    'listSiteRedirects', 'createSiteRedirect', 'getSiteRedirectBySource', 'updateSiteRedirectById',
    'deleteSiteRedirectById',
  ]),
  group(async () => (await import('./embed-handlers.js')).embedHandlers, [
    'getEmbedByUrl', 'getEmbedByUrlInSpace',
  ]),
  group(async () => (await import('./content-url-handlers.js')).contentUrlHandlers, [
    'getContentByUrl',
  ]),
  group(async () => (await import('./site-insights-handlers.js')).siteInsightsHandlers, [
    'trackEventsInSiteById', 'aggregateSiteEvents',
  ]),
  group(async () => (await import('./site-adaptive-schema-handlers.js')).siteAdaptiveSchemaHandlers, [
    'getSiteAdaptiveSchema', 'updateSiteAdaptiveSchema', 'listSiteAdaptiveTemplateConditions',
  ]),
  group(async () => (await import('./site-customization-handlers.js')).siteCustomizationHandlers, [
    'getSiteCustomizationById', 'updateSiteCustomizationById', 'previewSiteCustomizationById',
    'uploadSiteCustomizationImage', 'getSiteCustomizationImageById', 'getSiteSpaceCustomizationById',
    'overrideSiteSpaceCustomizationById', 'deleteSiteSpaceCustomizationById',
  ]),
  group(async () => (await import('./site-published-handlers.js')).sitePublishedHandlers, [
    'getPublishedContentSite',
  ]),
  group(async () => (await import('./content-permission-handlers.js')).contentPermissionHandlers, [
    'listUserPermissionsInSpace', 'listTeamPermissionsInSpace', 'listPermissionsAggregateInSpace', 'inviteToSpace',
    'updateUserPermissionInSpace', 'removeUserFromSpace', 'updateTeamPermissionInSpace', 'removeTeamFromSpace',
    'listUserPermissionsInCollection', 'listTeamPermissionsInCollection', 'listPermissionsAggregateInCollection',
    'inviteToCollection', 'updateUserPermissionInCollection', 'removeUserFromCollection',
    'updateTeamPermissionInCollection', 'removeTeamFromCollection', 'listPermissionsAggregateInSite',
  ]),
  group(async () => (await import('./published-content-handlers.js')).publishedContentHandlers, [
    'getPublishedContentByUrl', 'resolvePublishedContentByUrl',
  ]),
];

/** The operations that have a handler, without loading any. */
export function implementedOperations(): OperationId[] {
  return HANDLER_GROUPS.flatMap((entry) => entry.operations);
}

/** A group's handlers, refused when they are not exactly the operations listed for it. */
async function loadGroup(entry: GroupEntry, deps: HandlerDeps): Promise<Handlers> {
  const handlers = (await entry.load())(deps);
  const answered = Object.keys(handlers).sort();
  const listed = [...entry.operations].sort();
  if (answered.join() !== listed.join()) {
    throw new Error(`a handler group answers ${answered.join(', ')} but handlers/index.ts lists ${listed.join(', ')}`);
  }
  return handlers;
}

/** Every handler, every group loaded (the admin tools; tests of the groups). */
export async function allHandlers(deps: HandlerDeps): Promise<Handlers> {
  const merged: Record<string, unknown> = {};
  for (const entry of HANDLER_GROUPS) {
    for (const [operationId, handler] of Object.entries(await loadGroup(entry, deps))) {
      if (merged[operationId]) throw new Error(`two handlers for ${operationId}`);
      merged[operationId] = handler;
    }
  }
  return merged as Handlers;
}

export interface LazyHandlers {
  /** A handler per listed operation, which loads its group on first call (once), then calls the group's. */
  handlers: Handlers;
  /** Loads the groups not loaded yet, one per `turn` (a request meanwhile waits for one group at most). */
  warm(turn: () => Promise<void>): Promise<number>;
}

export function lazyHandlers(deps: HandlerDeps, groups: readonly GroupEntry[] = HANDLER_GROUPS): LazyHandlers {
  const handlers: Record<string, AnyHandler> = {};
  const loads: Array<() => Promise<Handlers>> = [];
  for (const entry of groups) {
    let loading: Promise<Handlers> | undefined;
    const load = (): Promise<Handlers> => {
      loading ??= loadGroup(entry, deps).catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return loading;
    };
    loads.push(load);
    for (const operationId of entry.operations) {
      if (handlers[operationId]) throw new Error(`two handlers for ${operationId}`);
      let loaded: AnyHandler | undefined;
      handlers[operationId] = (context) => loaded
        ? loaded(context)
        : load().then((group) => (loaded = (group as Record<string, AnyHandler>)[operationId]!)(context));
    }
  }
  return {
    handlers: handlers as Handlers,
    async warm(turn) {
      for (const load of loads) {
        await turn();
        await load();
      }
      return loads.length;
    },
  };
}
