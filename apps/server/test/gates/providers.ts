import { unwrap, type QuireClient } from '@quire/client';
import { allJobHandlers } from '../../src/jobs/index.js';
import { JobRunner } from '../../src/jobs/runner.js';
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

// Main content with a page and a file (merged from a change request), then an open change request on it.
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
  provides: ['pageId', 'fileId', 'changeRequestId'],
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
      ] },
    }));
    await unwrap(client(world).POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', crPath(first.id)));
    const open = await unwrap(client(world).POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body: { subject: 'Gate edits' } }));
    return { pageId: update.changes.find((change) => change.ref === 'guide')!.page, fileId: update.insertedFiles![0]!.id, changeRequestId: open.id };
  },
});

registerProvider({
  provides: ['commentId', 'commentReplyId'],
  needs: ['spaceId'],
  create: async (world) => {
    const spaceId = id(world, 'spaceId');
    const comment = await unwrap(client(world).POST('/spaces/{spaceId}/comments', { params: { path: { spaceId } }, body: { body: { markdown: 'Gate comment' } } }));
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
    await unwrap(client(world).PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath, body: { backendUrl: 'https://auth.example.test/login' } }));
    return { siteId: site.id, siteSpaceId: siteSpace.id, siteSectionId: section.id, siteSectionGroupId: group.id, shareLinkId: link.id };
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
    samlProviderId: (await unwrap(client(world).POST('/orgs/{organizationId}/saml', { params: { path: { organizationId: id(world, 'organizationId') } }, body: { label: 'Gate SAML' } as never }))).id,
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
registerValidBody('updateCollectionById', () => ({ title: 'Renamed collection' }));
registerValidBody('moveCollection', () => ({ parent: null }));
registerValidBody('transferCollection', (world) => ({ organization: id(world, 'organizationId') }));
registerValidBody('updateSpaceById', () => ({ title: 'Renamed space' }));
registerValidBody('moveSpace', () => ({ parent: null }));
registerValidBody('transferSpace', (world) => ({ organization: id(world, 'organizationId') }));
registerValidBody('updateChangeRequestById', () => ({ subject: 'Renamed change request' }));
registerValidBody('updateCommentInSpace', () => ({ body: { markdown: 'Edited comment' } }));
registerValidBody('updateCommentReplyInSpace', () => ({ body: { markdown: 'Edited reply' } }));
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
registerValidBody('createSiteShareLink', () => ({ name: 'Another link' }));
registerValidBody('updateSiteShareLinkById', () => ({ name: 'Renamed link' }));
registerValidBody('createOpenAPISpec', () => ({ slug: 'gate-spec-two', source: { text: GATE_SPEC } }));
registerValidBody('createOrUpdateOpenAPISpecBySlug', () => ({ source: { text: GATE_SPEC } }));
registerValidBody('updateOpenAPISpecBySlug', () => ({ visibility: 'private' }));
registerValidBody('createOrganizationSAMLProvider', () => ({ label: 'Another SAML' }));
registerValidBody('updateOrganizationSAMLProvider', () => ({ label: 'Renamed SAML' }));
registerValidBody('submitChangeRequestReview', () => ({ status: 'changes-requested' }));
registerValidBody('requestReviewersForChangeRequest', (world) => ({ users: [id(world, 'userId')] }));
registerValidBody('inviteToSpace', (world) => ({ role: 'comment', users: [id(world, 'userId')] }));
registerValidBody('inviteToCollection', (world) => ({ role: 'comment', users: [id(world, 'userId')] }));
registerValidBody('updateSiteAdaptiveSchema', () => ({ jsonSchema: GATE_ADAPTIVE_SCHEMA }));
registerValidBody('updateSiteVisitorAuth', () => ({ backendUrl: 'https://auth.example.test/other-login' }));
registerValidBody('updateTeamPermissionInSpace', () => ({ role: 'comment' }));
registerValidBody('updateTeamPermissionInCollection', () => ({ role: 'comment' }));
