import { mergeHandlers, type Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';
import { organizationHandlers } from './organization-handlers.js';
import { collectionHandlers } from './collection-handlers.js';
import { spaceHandlers } from './space-handlers.js';
import { spaceContentHandlers } from './space-content-handlers.js';
import { linkHandlers } from './link-handlers.js';
import { memberHandlers } from './member-handlers.js';
import { teamHandlers } from './team-handlers.js';
import { changeRequestHandlers } from './change-request-handlers.js';
import { gitSyncHandlers } from './git-sync-handlers.js';
import { commentHandlers } from './comment-handlers.js';
import { conversationHandlers } from './conversation-handlers.js';
import { glossaryHandlers } from './glossary-handlers.js';
import { integrationHandlers } from './integration-handlers.js';
import { samlHandlers } from './saml-handlers.js';
import { openApiSpecHandlers } from './openapi-spec-handlers.js';
import { siteHandlers } from './site-handlers.js';
import { grantHandlers } from './grant-handlers.js';
import { publishedContentHandlers } from './published-content-handlers.js';

export type { HandlerDeps } from './deps.js';

/** Every handler group; a family adds its `<resource>-handlers.ts` here. */
export function allHandlers(deps: HandlerDeps): Handlers {
  return mergeHandlers(
    organizationHandlers(deps),
    collectionHandlers(deps),
    spaceHandlers(deps),
    spaceContentHandlers(deps),
    linkHandlers(deps),
    memberHandlers(deps),
    teamHandlers(deps),
    changeRequestHandlers(deps),
    gitSyncHandlers(deps),
    commentHandlers(deps),
    conversationHandlers(deps),
    glossaryHandlers(deps),
    integrationHandlers(deps),
    samlHandlers(deps),
    openApiSpecHandlers(deps),
    siteHandlers(deps),
    grantHandlers(deps),
    publishedContentHandlers(deps),
  );
}
