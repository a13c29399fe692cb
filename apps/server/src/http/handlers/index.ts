import { mergeHandlers, type Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';
import { organizationHandlers } from './organization-handlers.js';
import { collectionHandlers } from './collection-handlers.js';
import { spaceHandlers } from './space-handlers.js';
import { spaceContentHandlers } from './space-content-handlers.js';
import { revisionHandlers } from './revision-handlers.js';
import { reusableContentHandlers } from './reusable-content-handlers.js';
import { linkHandlers } from './link-handlers.js';
import { memberHandlers } from './member-handlers.js';
import { teamHandlers } from './team-handlers.js';
import { changeRequestHandlers } from './change-request-handlers.js';
import { gitSyncHandlers } from './git-sync-handlers.js';
import { commentHandlers } from './comment-handlers.js';
import { commentReplyHandlers } from './comment-reply-handlers.js';
import { changeRequestDiscussionHandlers } from './change-request-discussion-handlers.js';
import { conversationHandlers } from './conversation-handlers.js';
import { glossaryHandlers } from './glossary-handlers.js';
import { integrationHandlers } from './integration-handlers.js';
import { samlHandlers } from './saml-handlers.js';
import { signInProviderHandlers } from './sign-in-provider-handlers.js';
import { openApiSpecHandlers } from './openapi-spec-handlers.js';
import { siteHandlers } from './site-handlers.js';
import { siteSpaceHandlers } from './site-space-handlers.js';
import { siteSectionHandlers } from './site-section-handlers.js';
import { siteStructureHandlers } from './site-structure-handlers.js';
import { sitePublishingAuthHandlers } from './site-publishing-auth-handlers.js';
import { sitePreviewHandlers } from './site-preview-handlers.js';
import { siteSearchHandlers } from './site-search-handlers.js';
import { siteShareLinkHandlers } from './site-share-link-handlers.js';
import { siteRedirectHandlers } from './site-redirect-handlers.js';
import { embedHandlers } from './embed-handlers.js';
import { contentUrlHandlers } from './content-url-handlers.js';
import { siteInsightsHandlers } from './site-insights-handlers.js';
import { siteAdaptiveSchemaHandlers } from './site-adaptive-schema-handlers.js';
import { siteCustomizationHandlers } from './site-customization-handlers.js';
import { sitePublishedHandlers } from './site-published-handlers.js';
import { contentPermissionHandlers } from './content-permission-handlers.js';
import { publishedContentHandlers } from './published-content-handlers.js';
import { userHandlers } from './user-handlers.js';
import { organizationInviteHandlers } from './organization-invite-handlers.js';
import { signInHandlers } from './sign-in-handlers.js';

export type { HandlerDeps } from './deps.js';

/** Every handler group; a family adds its `<resource>-handlers.ts` here. */
export function allHandlers(deps: HandlerDeps): Handlers {
  return mergeHandlers(
    organizationHandlers(deps),
    userHandlers(deps),
    organizationInviteHandlers(deps),
    signInHandlers(deps),
    collectionHandlers(deps),
    spaceHandlers(deps),
    spaceContentHandlers(deps),
    revisionHandlers(deps),
    reusableContentHandlers(deps),
    linkHandlers(deps),
    memberHandlers(deps),
    teamHandlers(deps),
    changeRequestHandlers(deps),
    gitSyncHandlers(deps),
    commentHandlers(deps),
    commentReplyHandlers(deps),
    changeRequestDiscussionHandlers(deps),
    conversationHandlers(deps),
    glossaryHandlers(deps),
    integrationHandlers(deps),
    samlHandlers(deps),
    signInProviderHandlers(deps),
    openApiSpecHandlers(deps),
    siteHandlers(deps),
    siteSpaceHandlers(deps),
    siteSectionHandlers(deps),
    siteStructureHandlers(deps),
    sitePublishingAuthHandlers(deps),
    sitePreviewHandlers(deps),
    siteSearchHandlers(deps),
    siteShareLinkHandlers(deps),
    siteRedirectHandlers(deps),
    embedHandlers(deps),
    contentUrlHandlers(deps),
    siteInsightsHandlers(deps),
    siteAdaptiveSchemaHandlers(deps),
    siteCustomizationHandlers(deps),
    sitePublishedHandlers(deps),
    contentPermissionHandlers(deps),
    publishedContentHandlers(deps),
  );
}
