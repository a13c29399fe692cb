import { unwrap, type QuireClient } from '@quire/client';
import { allJobHandlers } from '../../src/jobs/index.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { setUserPasswordByEmail } from '../../src/services/sign-in-service.js';
import { newMember, newOrg, type TestOrg } from '../helpers.js';
import type { TestServer } from '../server.js';

/*
 * Real ids for the gates. Each provider makes the resources behind one or more path parameters of the
 * contract (by its parameter names: `spaceId`, `teamId`, ...) through the API, as clients do, from ids that
 * other providers made first. A family that adds operations with a new path parameter registers its
 * provider here (`registerProvider`); until it does, the gates still send that family's operations bad input,
 * but with a made-up id, and list the parameter under "no provider" in their figures.
 */

export interface World {
  server: TestServer;
  org: TestOrg;
  /** Ids by path parameter name. */
  ids: Record<string, string>;
}

export interface Provider {
  /** The path parameters it gives ids for. */
  provides: string[];
  /** The path parameters whose ids it needs first. */
  needs: string[];
  create(world: World): Promise<Record<string, string>>;
}

const providers: Provider[] = [];

export function registerProvider(provider: Provider): void {
  for (const name of provider.provides) {
    if (providers.some((other) => other.provides.includes(name))) throw new Error(`two providers give ${name}`);
  }
  providers.push(provider);
}

export function providedParameters(): Set<string> {
  return new Set(providers.flatMap((provider) => provider.provides));
}

/** Makes a new organization and, in dependency order, every resource a registered provider gives. */
export async function buildWorld(server: TestServer, title: string): Promise<World> {
  const org = await newOrg(server, title);
  const world: World = { server, org, ids: { organizationId: org.organizationId } };
  const pending = providers.filter((provider) => !provider.provides.every((name) => name in world.ids));
  while (pending.length > 0) {
    const ready = pending.findIndex((provider) => provider.needs.every((name) => name in world.ids));
    if (ready === -1) throw new Error(`providers need ids nobody provides: ${pending.map((provider) => provider.needs.join(',')).join('; ')}`);
    const [provider] = pending.splice(ready, 1);
    Object.assign(world.ids, await provider!.create(world));
  }
  return world;
}

const client = (world: World): QuireClient => world.org.client;
const id = (world: World, name: string): string => {
  const value = world.ids[name];
  if (!value) throw new Error(`${name} is not provided yet`);
  return value;
};

registerProvider({ provides: ['organizationId'], needs: [], create: async (world) => ({ organizationId: world.org.organizationId }) });

registerProvider({
  provides: ['userId'],
  needs: ['organizationId'],
  create: async (world) => ({ userId: (await newMember(world.server, world.org, 'read')).userId }),
});

registerProvider({
  provides: ['spaceId'],
  needs: ['organizationId'],
  create: async (world) => ({
    spaceId: (await unwrap(client(world).POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: id(world, 'organizationId') } }, body: { title: 'Gate space' } }))).id,
  }),
});

registerProvider({
  provides: ['collectionId'],
  needs: ['organizationId'],
  create: async (world) => ({
    collectionId: (await unwrap(client(world).POST('/orgs/{organizationId}/collections', { params: { path: { organizationId: id(world, 'organizationId') } }, body: { title: 'Gate collection' } }))).id,
  }),
});

registerProvider({
  provides: ['teamId'],
  needs: ['organizationId', 'userId'],
  create: async (world) => ({
    teamId: (await unwrap(client(world).PUT('/orgs/{organizationId}/teams', { params: { path: { organizationId: id(world, 'organizationId') } }, body: { title: 'Gate team', members: [id(world, 'userId')] } }))).id,
  }),
});

// Main content with a page, a file and a reusable content (merged from a change request), then an open change
// request on it.
// The gate team holds a role on the gate space and collection, so that its grant can be changed and removed.
registerProvider({
  provides: ['teamGrants'],
  needs: ['spaceId', 'collectionId', 'teamId'],
  create: async (world) => {
    const teams = [id(world, 'teamId')];
    await unwrap(client(world).POST('/spaces/{spaceId}/permissions', { params: { path: { spaceId: id(world, 'spaceId') } }, body: { role: 'read', teams } }));
    await unwrap(client(world).POST('/collections/{collectionId}/permissions', { params: { path: { collectionId: id(world, 'collectionId') } }, body: { role: 'read', teams } }));
    return { teamGrants: 'made' };
  },
});

registerProvider({
  provides: ['pageId', 'fileId', 'reusableContentId', 'changeRequestId'],
  needs: ['spaceId'],
  create: async (world) => {
    const spaceId = id(world, 'spaceId');
    const crPath = (changeRequestId: string) => ({ params: { path: { spaceId, changeRequestId } } });
    const first = await unwrap(client(world).POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body: { subject: 'Gate content' } }));
    const update = await unwrap(client(world).POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
      ...crPath(first.id),
      body: { changes: [
        { operation: 'insert_files', files: [{ name: 'notes.txt', base64: Buffer.from('notes').toString('base64'), ref: 'notes' }] },
        { operation: 'insert_page', title: 'Guide', document: { markdown: '# Guide\n\nSee [the notes](ref:notes).' }, ref: 'guide' },
        { operation: 'insert_reusable_content', title: 'Gate block', document: { markdown: 'Shared **text**.' }, ref: 'block' },
      ] },
    }));
    await unwrap(client(world).POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', crPath(first.id)));
    const open = await unwrap(client(world).POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body: { subject: 'Gate edits' } }));
    return {
      pageId: update.changes.find((change) => change.ref === 'guide')!.page,
      fileId: update.insertedFiles![0]!.id,
      reusableContentId: update.reusableContents![0]!.reusableContent,
      changeRequestId: open.id,
    };
  },
});

// The main revision holding the gate page (revisions never change, so later writes leave it readable), the
// page's path and its document.
registerProvider({
  provides: ['revisionId', 'pagePath', 'documentId'],
  needs: ['spaceId', 'pageId'],
  create: async (world) => {
    const spaceId = id(world, 'spaceId');
    const page = await unwrap(client(world).GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId: id(world, 'pageId') } } }));
    const space = await unwrap(client(world).GET('/spaces/{spaceId}', { params: { path: { spaceId } } }));
    return { revisionId: space.revision, pagePath: page.path!, documentId: page.documentId! };
  },
});

// A comment posted on the open change request, so that the space's comment operations and the change request's
// reach the same comment.
registerProvider({
  provides: ['commentId', 'commentReplyId'],
  needs: ['spaceId', 'changeRequestId'],
  create: async (world) => {
    const spaceId = id(world, 'spaceId');
    const comment = await unwrap(client(world).POST('/spaces/{spaceId}/comments', { params: { path: { spaceId } }, body: { changeRequest: id(world, 'changeRequestId'), body: { markdown: 'Gate comment' } } }));
    const reply = await unwrap(client(world).POST('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path: { spaceId, commentId: comment.id } }, body: { body: { markdown: 'Gate reply' } } }));
    return { commentId: comment.id, commentReplyId: reply.id };
  },
});

registerProvider({
  provides: ['glossaryEntryId'],
  needs: ['organizationId'],
  create: async (world) => {
    const path = { params: { path: { organizationId: id(world, 'organizationId') } } };
    await unwrap(client(world).PUT('/orgs/{organizationId}/translations-glossary', { ...path, body: { operations: [{ type: 'insert', translations: { en: 'space', fr: 'espace' } }] } as never }));
    const entries = await unwrap(client(world).GET('/orgs/{organizationId}/translations-glossary', path));
    return { glossaryEntryId: entries.items[0]!.id };
  },
});

// Conversations, then the analysis jobs (the test server runs none of its own) that find issues and clusters.
registerProvider({
  provides: ['conversationId', 'issueId', 'clusterId'],
  needs: ['organizationId'],
  create: async (world) => {
    const path = { params: { path: { organizationId: id(world, 'organizationId') } } };
    const message = (body: string) => ({ type: 'message', role: 'user', body });
    await unwrap(client(world).POST('/orgs/{organizationId}/conversations', { ...path, body: [
      { id: 'gate-a', parts: [message('Our SAML SSO login fails with error 500 after the redirect.')] },
      { id: 'gate-b', parts: [message('SAML SSO login gives error 500 after the Okta redirect.')] },
    ] as never }));
    const runner = new JobRunner({ services: world.server.running.services, handlers: allJobHandlers() });
    while (await runner.runOnce()) { /* until the queue is empty */ }
    const conversations = await unwrap(client(world).GET('/orgs/{organizationId}/conversations', path));
    const issues = await unwrap(client(world).GET('/orgs/{organizationId}/conversations-issues', path));
    const clusters = await unwrap(client(world).GET('/orgs/{organizationId}/conversations-clusters', path));
    return { conversationId: conversations.items[0]!.id, issueId: issues.items[0]!.issue.id, clusterId: clusters.items[0]!.id };
  },
});

registerProvider({
  provides: ['integrationName'],
  needs: ['organizationId'],
  create: async (world) => {
    const integrationName = `gate-${world.org.organizationId.slice(0, 8).toLowerCase()}`;
    await unwrap(client(world).POST('/integrations/{integrationName}', {
      params: { path: { integrationName } },
      body: { organization: id(world, 'organizationId'), title: 'Gate integration', description: 'For the gates', scopes: ['space:content:read'], script: 'export default {}' } as never,
    }));
    return { integrationName };
  },
});

// An e-mail domain the gate's organization declares, so that getOrganizationsForEmailDomain names it.
registerProvider({
  provides: ['emailDomain'],
  needs: ['organizationId'],
  create: async (world) => {
    const emailDomain = `gate-${world.org.organizationId.slice(0, 8).toLowerCase()}.example.com`;
    await unwrap(client(world).PATCH('/orgs/{organizationId}', { params: { path: { organizationId: id(world, 'organizationId') } }, body: { emailDomains: [emailDomain] } }));
    return { emailDomain };
  },
});

const GATE_ADAPTIVE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  properties: { unsigned: { type: 'object', description: 'Unsigned claims of the site visitor.', additionalProperties: false, properties: { beta: { type: 'boolean', description: 'Beta tester' } } } },
};

// A docs site publishing the gate space, with a section on a second space, a section group and a share link.
registerProvider({
  provides: ['siteId', 'siteSpaceId', 'siteSectionId', 'siteSectionGroupId', 'shareLinkId'],
  needs: ['organizationId', 'spaceId'],
  create: async (world) => {
    const organizationId = id(world, 'organizationId');
    const orgPath = { params: { path: { organizationId } } };
    const site = await unwrap(client(world).POST('/orgs/{organizationId}/sites', { ...orgPath, body: { title: 'Gate site' } as never }));
    const sitePath = { params: { path: { organizationId, siteId: site.id } } };
    const siteSpace = await unwrap(client(world).POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { ...sitePath, body: { spaceId: id(world, 'spaceId') } as never }));
    const sectionSpace = await unwrap(client(world).POST('/orgs/{organizationId}/spaces', { ...orgPath, body: { title: 'Gate section space' } }));
    const section = await unwrap(client(world).POST('/orgs/{organizationId}/sites/{siteId}/sections', { ...sitePath, body: { spaceId: sectionSpace.id, title: 'Gate section' } as never }));
    const group = await unwrap(client(world).POST('/orgs/{organizationId}/sites/{siteId}/section-groups', { ...sitePath, body: { title: 'Gate group' } }));
    const link = await unwrap(client(world).POST('/orgs/{organizationId}/sites/{siteId}/share-links', { ...sitePath, body: { name: 'Gate link' } }));
    // An adaptive schema, without which reading it answers 404 to everyone.
    await unwrap(client(world).PUT('/orgs/{organizationId}/sites/{siteId}/adaptive-schema', { ...sitePath, body: { jsonSchema: GATE_ADAPTIVE_SCHEMA as never } }));
    // Visitor authentication, without which reading it answers 404 to everyone.
    await unwrap(client(world).PATCH('/orgs/{organizationId}/sites/{siteId}/publishing/auth', { ...sitePath, body: { backend: 'custom', fallbackURL: 'https://auth.example.test/login' } }));
    return { siteId: site.id, siteSpaceId: siteSpace.id, siteSectionId: section.id, siteSectionGroupId: group.id, shareLinkId: link.id };
  },
});

// A redirect of the gate site, from the source the contract gives as its example (getSiteRedirectBySource's valid query).
registerProvider({
  provides: ['siteRedirectId'],
  needs: ['organizationId', 'siteId', 'siteSpaceId'],
  create: async (world) => {
    const sitePath = { params: { path: { organizationId: id(world, 'organizationId'), siteId: id(world, 'siteId') } } };
    const redirect = await unwrap(client(world).POST('/orgs/{organizationId}/sites/{siteId}/redirects', {
      ...sitePath, body: { source: '/old/setup', destination: { kind: 'site-space', siteSpaceId: id(world, 'siteSpaceId') } },
    }));
    return { siteRedirectId: redirect.id };
  },
});

// An image of the gate site's customization (its logo), a 1×1 PNG.
registerProvider({
  provides: ['siteImageId'],
  needs: ['organizationId', 'siteId'],
  create: async (world) => {
    const sitePath = { params: { path: { organizationId: id(world, 'organizationId'), siteId: id(world, 'siteId') } } };
    const base64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const image = await unwrap(client(world).POST('/orgs/{organizationId}/sites/{siteId}/customization/images', { ...sitePath, body: { base64 } }));
    return { siteImageId: image.id };
  },
});

const GATE_SPEC = 'openapi: 3.0.3\ninfo:\n  title: Gate\n  version: 1.0.0\npaths:\n  /things:\n    get:\n      responses:\n        \'200\':\n          description: The things\n';

registerProvider({
  provides: ['specSlug', 'versionId'],
  needs: ['organizationId'],
  create: async (world) => {
    const organizationId = id(world, 'organizationId');
    await unwrap(client(world).POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId } }, body: { slug: 'gate-spec', source: { text: GATE_SPEC } } as never }));
    // Versions are made by the processing job, which the test server does not run by itself.
    const runner = new JobRunner({ services: world.server.running.services, handlers: allJobHandlers() });
    while (await runner.runOnce()) { /* until the queue is empty */ }
    const versions = await unwrap(client(world).GET('/orgs/{organizationId}/openapi/{specSlug}/versions', { params: { path: { organizationId, specSlug: 'gate-spec' } } }));
    return { specSlug: 'gate-spec', versionId: versions.items[0]!.id };
  },
});

registerProvider({
  provides: ['samlProviderId'],
  needs: ['organizationId'],
  create: async (world) => ({
    samlProviderId: (await unwrap(client(world).POST('/orgs/{organizationId}/saml', { params: { path: { organizationId: id(world, 'organizationId') } }, body: { label: 'Gate SAML', ssoURL: 'https://idp.example.com/sso' } }))).id,
  }),
});

// A review of the open change request, by a reviewer (nobody reviews their own change request).
registerProvider({
  provides: ['reviewId'],
  needs: ['spaceId', 'changeRequestId'],
  create: async (world) => {
    const reviewer = await newMember(world.server, world.org, 'review');
    const review = await unwrap(reviewer.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', {
      params: { path: { spaceId: id(world, 'spaceId'), changeRequestId: id(world, 'changeRequestId') } },
      body: { status: 'approved' },
    }));
    return { reviewId: review.id };
  },
});

/** The password of the gate organization's admin, set by the `sessionId` provider; `signIn`'s valid body uses it. */
export const GATE_PASSWORD = 'gate admin passphrase 2026';

// A browser session of the gate organization's admin, opened by signing in with a password the operator set.
registerProvider({
  provides: ['sessionId'],
  needs: [],
  create: async (world) => {
    const email = (await unwrap(client(world).GET('/user'))).email!;
    world.ids.adminEmail = email;
    await setUserPasswordByEmail(world.server.running.services, email, GATE_PASSWORD);
    const session = await unwrap(world.server.client().POST('/auth/sign-in', { body: { email, password: GATE_PASSWORD } }));
    if (session.object !== 'auth-session') throw new Error('the gate admin has no second factor: signIn must open a session');
    return { sessionId: session.session.id };
  },
});

/*
 * Valid bodies the schemas alone do not give (a pattern, "at least one property", ids of real things). The
 * gates build every other body from the schema; a family whose operations need one registers it here.
 */
const bodies = new Map<string, (world: World) => unknown>();

export function registerValidBody(operationId: string, body: (world: World) => unknown): void {
  if (bodies.has(operationId)) throw new Error(`two valid bodies for ${operationId}`);
  bodies.set(operationId, body);
}

export function registeredValidBody(operationId: string, world: World): { body: unknown } | undefined {
  const make = bodies.get(operationId);
  return make ? { body: make(world) } : undefined;
}

const gitTarget = { url: 'https://git.example.invalid/owner/repo.git', ref: 'refs/heads/main' };
// The reference introduction of the gate's processed OpenAPI specification.
registerValidBody('getComputedDocument', (world) => ({
  source: { type: 'builtin:openapi', props: { doc: 'info' }, dependencies: { spec: { ref: { kind: 'openapi', spec: id(world, 'specSlug') } } } },
  seed: 'gate',
}));
// The pages of the reference of the same specification.
registerValidBody('getComputedRevision', (world) => ({
  source: { type: 'builtin:openapi', props: { models: false }, dependencies: { spec: { ref: { kind: 'openapi', spec: id(world, 'specSlug') } } } },
  seed: 'gate',
}));
// A page view of the gate's site, and a question over the last day of its events.
registerValidBody('trackEventsInSiteById', () => ({
  events: [{
    type: 'page_view',
    session: { visitorId: 'gate-visitor', sessionId: 'gate-session', cookies: {}, userAgent: 'gate', language: null, referrer: null },
    location: { url: 'https://docs.example.com/gate', siteSection: null, siteSpace: null, siteShareKey: null, space: null, revision: null, page: null },
  }],
}));
registerValidBody('aggregateSiteEvents', () => ({ range: 'last24Hours', groupBy: [{ column: 'eventType' }] }));
registerValidBody('signIn', (world) => ({ email: id(world, 'adminEmail'), password: GATE_PASSWORD }));
// Six digits (a pattern the schema generator does not meet); not the current code, so it turns nothing on.
registerValidBody('confirmTotpEnrollment', () => ({ code: '123456' }));
registerValidBody('updateCollectionById', () => ({ title: 'Renamed collection' }));
registerValidBody('moveCollection', () => ({ parent: null }));
registerValidBody('transferCollection', (world) => ({ organization: id(world, 'organizationId') }));
registerValidBody('updateSpaceById', () => ({ title: 'Renamed space' }));
registerValidBody('moveSpace', () => ({ parent: null }));
registerValidBody('transferSpace', (world) => ({ organization: id(world, 'organizationId') }));
registerValidBody('updateChangeRequestById', () => ({ subject: 'Renamed change request' }));
registerValidBody('updateCommentInSpace', () => ({ body: { markdown: 'Edited comment' } }));
registerValidBody('updateCommentReplyInSpace', () => ({ body: { markdown: 'Edited reply' } }));
registerValidBody('updateCommentInChangeRequest', () => ({ body: { markdown: 'Edited comment' } }));
registerValidBody('updateCommentReplyInChangeRequest', () => ({ body: { markdown: 'Edited reply' } }));
registerValidBody('exportToGitRepository', () => ({ ...gitTarget, commitMessage: 'Export from the gates' }));
registerValidBody('importGitRepository', () => gitTarget);
registerValidBody('updateGlossaryEntries', () => ({ operations: [{ type: 'insert', translations: { en: 'page', fr: 'page' } }] }));
registerValidBody('createSite', () => ({ title: 'Another gate site' }));
registerValidBody('updateSiteById', () => ({ title: 'Renamed site' }));
registerValidBody('addSpaceToSite', (world) => ({ spaceId: id(world, 'spaceId') }));
registerValidBody('updateSiteSpaceById', () => ({ path: 'renamed' }));
registerValidBody('addSectionToSite', (world) => ({ spaceId: id(world, 'spaceId'), title: 'Another section' }));
registerValidBody('updateSiteSectionById', () => ({ title: 'Renamed section' }));
registerValidBody('addSectionGroupToSite', () => ({ title: 'Another group' }));
registerValidBody('updateSiteSectionGroupById', () => ({ title: 'Renamed group' }));
registerValidBody('addSectionToGroup', (world) => ({ sectionId: id(world, 'siteSectionId') }));
registerValidBody('sortSiteStructure', (world) => ({ item: { type: 'site-section', id: id(world, 'siteSectionId') }, position: {} }));
registerValidBody('createSiteShareLink', () => ({ name: 'Another link' }));
registerValidBody('updateSiteShareLinkById', () => ({ name: 'Renamed link' }));
// Each valid create has a source of its own: a second redirect from one source is a 409.
let gateRedirects = 0;
registerValidBody('createSiteRedirect', (world) => ({ source: `/gate/moved-${++gateRedirects}`, destination: { kind: 'site-space', siteSpaceId: id(world, 'siteSpaceId') } }));
registerValidBody('updateSiteRedirectById', (world) => ({ destination: { kind: 'site-space', siteSpaceId: id(world, 'siteSpaceId') } }));
registerValidBody('createOpenAPISpec', () => ({ slug: 'gate-spec-two', source: { text: GATE_SPEC } }));
registerValidBody('createOrUpdateOpenAPISpecBySlug', () => ({ source: { text: GATE_SPEC } }));
registerValidBody('updateOpenAPISpecBySlug', () => ({ visibility: 'private' }));
registerValidBody('createOrganizationSAMLProvider', () => ({ label: 'Another SAML', ssoURL: 'https://idp.example.com/sso' }));
registerValidBody('updateOrganizationSAMLProvider', () => ({ label: 'Renamed SAML' }));
registerValidBody('submitChangeRequestReview', () => ({ status: 'changes-requested' }));
registerValidBody('requestReviewersForChangeRequest', (world) => ({ users: [id(world, 'userId')] }));
registerValidBody('inviteToSpace', (world) => ({ role: 'comment', users: [id(world, 'userId')] }));
registerValidBody('updateUserById', () => ({ displayName: 'Gate user' }));
registerValidBody('inviteToCollection', (world) => ({ role: 'comment', users: [id(world, 'userId')] }));
registerValidBody('updateSiteAdaptiveSchema', () => ({ jsonSchema: GATE_ADAPTIVE_SCHEMA }));
registerValidBody('updateSitePublishingAuthById', () => ({ backend: 'custom', fallbackURL: 'https://auth.example.test/other-login' }));
registerValidBody('searchSiteContent', () => ({ query: 'gate', scope: { mode: 'all' } }));
registerValidBody('updateTeamPermissionInSpace', () => ({ role: 'comment' }));
registerValidBody('updateTeamPermissionInCollection', () => ({ role: 'comment' }));

// Invitations: invite links turned on, a link for the link-invite operations (`inviteId`), another link whose
// secret joinOrganizationWithInvite and the preview take (deleting the first leaves it working), and an
// e-mail invitation waiting for a new person, whose secret acceptOrganizationInvite takes (once).
registerProvider({
  provides: ['inviteId', 'inviteSecret', 'emailInviteSecret'],
  needs: ['organizationId'],
  create: async (world) => {
    const organizationId = id(world, 'organizationId');
    const path = { params: { path: { organizationId } } };
    await unwrap(client(world).PATCH('/orgs/{organizationId}', { ...path, body: { inviteLinks: true } }));
    const managed = await unwrap(client(world).POST('/orgs/{organizationId}/link-invites', { ...path, body: { role: 'read' } }));
    const joining = await unwrap(client(world).POST('/orgs/{organizationId}/link-invites', { ...path, body: { role: 'read' } }));
    const mailed = await unwrap(client(world).POST('/orgs/{organizationId}/invites', { ...path, body: { emails: [`gate-invitee-${organizationId.slice(0, 8).toLowerCase()}@example.com`] } }));
    const secretOf = (url: string | undefined) => new URL(url!).pathname.split('/').pop()!;
    return { inviteId: managed.id, inviteSecret: secretOf(joining.url), emailInviteSecret: secretOf(mailed.invites[0]!.url) };
  },
});
registerValidBody('createOrganizationInvite', () => ({ role: 'comment' }));
registerValidBody('updateOrganizationInviteById', () => ({ role: 'comment' }));
registerValidBody('inviteUsersToOrganization', () => ({ emails: ['gate-another-invitee@example.com'], role: 'read' }));
registerValidBody('previewOrganizationInvite', (world) => ({ invite: id(world, 'inviteSecret') }));
registerValidBody('acceptOrganizationInvite', (world) => ({ invite: id(world, 'emailInviteSecret'), displayName: 'Gate invitee', password: 'a gate passphrase nobody uses' }));
