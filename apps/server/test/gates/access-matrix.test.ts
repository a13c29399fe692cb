import { expect, it } from 'vitest';
import { loadBundledContract, type OperationInfo } from '../../src/http/openapi/contract.js';
import { collectionPermissions } from '../../src/policies/collection-policy.js';
import { canIngestConversations, canReadConversations } from '../../src/policies/conversation-policy.js';
import { canEditGlossary, canReadGlossary } from '../../src/policies/glossary-policy.js';
import { canReviewOwnChangeRequest } from '../../src/policies/merge-rule-policy.js';
import { canReadOpenApiSpecs } from '../../src/policies/openapi-spec-policy.js';
import { canManageSamlProviders, canListSsoLogins } from '../../src/policies/saml-policy.js';
import { canManageSites, canReadSites, canSeeShareKeys } from '../../src/policies/site-policy.js';
import { canListMembers, canManageMembers, canViewMember } from '../../src/policies/member-policy.js';
import { canManageInvites } from '../../src/policies/organization-invite-policy.js';
import { canManageOpenApiSpecs, organizationPermissions, type OrganizationMembership } from '../../src/policies/organization-policy.js';
import type { RoleOrGuest } from '../../src/policies/roles.js';
import { spacePermissions, type SpacePermission } from '../../src/policies/space-policy.js';
import { canCreateTeam, canListTeams, canListTeamsOfMember, teamMembershipPermissions, teamPermissions } from '../../src/policies/team-policy.js';
import { canReadUser, canUpdateUser } from '../../src/policies/user-policy.js';
import { contentRole } from '../../src/policies/visibility-policy.js';
import { describeEachDialect } from '../dialects.js';
import { newMember, newOrg, useTestServer } from '../helpers.js';
import { buildWorld } from './providers.js';
import { hasErrorShape, runOrder, sendRaw, sendValid, snapshotUrl, validRequest } from './requests.js';

/*
 * Access matrices for every implemented operation with an id in its path, generated from the contract.
 * Another organization's admin, sending each operation's valid request with this organization's ids, gets
 * 404 in the error shape and changes nothing. Then each role of the organization sends it, and gets what
 * the policy functions say: refused (403 or 404, in the error shape, nothing changed) or let through (no
 * 401/403/404). Which policy rule decides an operation is stated below, once per operation, in terms of the
 * policy functions themselves; operations without a rule yet are listed in the figures.
 */

type Person = { role: RoleOrGuest; userId: string };
type Rule = (person: Person, targets: { userId: string; changeRequestCreator: string }) => boolean;

const membership = (role: RoleOrGuest): OrganizationMembership => ({ role, disabled: false });
/** The gate's spaces and collections hang from the organization, inherit its roles and have no grants. */
const space = (permission: SpacePermission): Rule => ({ role }) =>
  spacePermissions(contentRole({ membership: membership(role), defaultLevels: ['inherit'], grants: [] }), { editMode: 'live', deleted: false })[permission];
const collection = (permission: 'view' | 'admin'): Rule => ({ role }) => collectionPermissions(contentRole({ membership: membership(role), defaultLevels: ['inherit'], grants: [] }))[permission];
const organization = (permission: keyof ReturnType<typeof organizationPermissions>): Rule => ({ role }) => organizationPermissions(membership(role))[permission];
const team = (permission: 'view' | 'admin'): Rule => ({ role }) => teamPermissions(membership(role), null)[permission];

const RULES: Record<string, Rule> = {
  getOrganizationById: organization('view'),
  // Organization search (search-service): whoever sees the organization searches what they see of it.
  searchOrganizationContent: organization('view'),
  // Anyone signed in may ask; the answer names only their own organizations (organization-service).
  getOrganizationsForEmailDomain: () => true,
  // Users (user-policy): read through a shared organization, changed only by themselves.
  getUserById: ({ role, userId }, targets) => canReadUser(userId, targets.userId, [membership(role)]),
  updateUserById: ({ userId }, targets) => canUpdateUser(userId, targets.userId),
  listSpacesInOrganizationById: organization('view'),
  listCollectionsInOrganizationById: organization('view'),
  createSpace: organization('createContent'),
  createCollection: organization('createContent'),
  listMembersInOrganizationById: ({ role }) => canListMembers(membership(role)),
  getMemberInOrganizationById: ({ role, userId }, targets) => canViewMember(membership(role), userId, targets.userId),
  updateMemberInOrganizationById: ({ role }) => canManageMembers(membership(role)),
  removeMemberFromOrganizationById: ({ role }) => canManageMembers(membership(role)),
  // Invitations (organization-invite-policy): admins make, read, change and revoke them. Joining is for anyone
  // signed in: everyone of the matrix is in the organization already, which the join operations answer (409 or
  // 204), not refuse.
  inviteUsersToOrganization: ({ role }) => canManageInvites(membership(role)),
  listOrganizationInviteLinks: ({ role }) => canManageInvites(membership(role)),
  createOrganizationInvite: ({ role }) => canManageInvites(membership(role)),
  getOrganizationInviteLink: ({ role }) => canManageInvites(membership(role)),
  updateOrganizationInviteById: ({ role }) => canManageInvites(membership(role)),
  deleteOrganizationInviteById: ({ role }) => canManageInvites(membership(role)),
  joinOrganizationWithInvite: () => true,
  joinOrganization: () => true,
  listTeamsForOrganizationMember: ({ role, userId }, targets) => canListTeamsOfMember(membership(role), userId, targets.userId),
  listTeamsInOrganizationById: ({ role }) => canListTeams(membership(role)),
  createOrganizationTeam: ({ role }) => canCreateTeam(membership(role)),
  getTeamInOrganizationById: team('view'),
  updateTeamInOrganizationById: team('admin'),
  removeTeamFromOrganizationById: team('admin'),
  updateMembersInOrganizationTeam: team('admin'),
  addMemberToOrganizationTeamById: team('admin'),
  deleteMemberFromOrganizationTeamById: team('admin'),
  listTeamMembersInOrganizationById: ({ role }) => teamMembershipPermissions(teamPermissions(membership(role), null)).view,
  listGlossaryEntries: ({ role }) => canReadGlossary(membership(role)),
  getGlossaryEntry: ({ role }) => canReadGlossary(membership(role)),
  updateGlossaryEntries: ({ role }) => canEditGlossary(membership(role)),
  listConversations: ({ role }) => canReadConversations(membership(role)),
  getConversationById: ({ role }) => canReadConversations(membership(role)),
  listConversationsIssues: ({ role }) => canReadConversations(membership(role)),
  getConversationIssueById: ({ role }) => canReadConversations(membership(role)),
  listConversationsIssuesClusters: ({ role }) => canReadConversations(membership(role)),
  getConversationsIssuesCluster: ({ role }) => canReadConversations(membership(role)),
  ingestConversation: ({ role }) => canIngestConversations(membership(role)),
  getCollectionById: collection('view'),
  listSpacesInCollectionById: collection('view'),
  updateCollectionById: collection('admin'),
  deleteCollectionById: collection('admin'),
  getSpaceById: space('view'),
  updateSpaceById: space('admin'),
  deleteSpaceById: space('admin'),
  moveSpace: space('admin'),
  transferSpace: space('admin'),
  createChangeRequest: space('edit'),
  updateChangeRequestById: space('edit'),
  updateChangeRequestContent: space('edit'),
  mergeChangeRequest: space('merge'),
  postCommentInSpace: space('comment'),
  postCommentReplyInSpace: space('comment'),
  postCommentInChangeRequest: space('comment'),
  postCommentReplyInChangeRequest: space('comment'),
  applyTemplateToSpace: space('edit'),
  importGitRepository: space('triggerGitSync'),
  exportToGitRepository: space('triggerGitSync'),
  updateChangeRequest: space('edit'),
  restoreSpace: space('admin'),
  // Revisions by id, what they change, pages by path and documents (revision-service, semantic-changes-service):
  // whoever sees the space reads them.
  ...Object.fromEntries([
    'getRevisionById', 'listPagesInRevisionById', 'listFilesInRevisionById', 'getFileInRevisionById', 'getPageInRevisionById',
    'getPageDocumentInRevisionById', 'getPageInRevisionByPath', 'getPageByPath', 'getPageInChangeRequestByPath', 'getDocumentById',
    'getRevisionSemanticChanges', 'getChangeRequestChanges',
    // Reusable contents (reusable-content-service), read like pages.
    'getReusableContentById', 'getReusableContentInRevisionById', 'getReusableContentDocumentInRevisionById', 'getReusableContentInChangeRequestById',
  ].map((operationId): [string, Rule] => [operationId, space('view')])),
  // The PDF of a space's main content (space-content-service): whoever sees the space prints it.
  getSpacePDF: space('view'),
  // Computed documents (computed-content-service): whoever sees the space computes them; nothing is written.
  getComputedDocument: space('view'),
  getComputedRevision: space('view'),
  // Reviews (change-request-review-service): asking and un-asking reviewers edits the request; reviewing needs
  // the review permission, and never by the request's author (the gate's admin made its change request).
  requestReviewersForChangeRequest: space('edit'),
  removeRequestedReviewerFromChangeRequest: space('edit'),
  submitChangeRequestReview: (person, targets) => space('review')(person, targets) && canReviewOwnChangeRequest(person.userId, targets.changeRequestCreator),
  // Content permissions (content-permission-service): listed and changed by the admins of the space or collection.
  listUserPermissionsInSpace: space('admin'),
  listTeamPermissionsInSpace: space('admin'),
  listPermissionsAggregateInSpace: space('admin'),
  inviteToSpace: space('admin'),
  updateUserPermissionInSpace: space('admin'),
  updateTeamPermissionInSpace: space('admin'),
  removeUserFromSpace: space('admin'),
  removeTeamFromSpace: space('admin'),
  listUserPermissionsInCollection: collection('admin'),
  listTeamPermissionsInCollection: collection('admin'),
  listPermissionsAggregateInCollection: collection('admin'),
  inviteToCollection: collection('admin'),
  updateUserPermissionInCollection: collection('admin'),
  updateTeamPermissionInCollection: collection('admin'),
  removeUserFromCollection: collection('admin'),
  removeTeamFromCollection: collection('admin'),
  // SAML single sign-on (saml-policy): configured by admins; its sign-in entry points shown to the organization.
  listSAMLProvidersInOrganizationById: ({ role }) => canManageSamlProviders(membership(role)),
  getOrganizationSAMLProviderById: ({ role }) => canManageSamlProviders(membership(role)),
  createOrganizationSAMLProvider: ({ role }) => canManageSamlProviders(membership(role)),
  updateOrganizationSAMLProvider: ({ role }) => canManageSamlProviders(membership(role)),
  deleteOrganizationSAMLProvider: ({ role }) => canManageSamlProviders(membership(role)),
  listSSOProviderLoginsInOrganization: ({ role }) => canListSsoLogins(membership(role)),
  // OpenAPI specifications (openapi-spec-policy): members read them; the create role and above change them.
  listOpenAPISpecs: ({ role }) => canReadOpenApiSpecs(membership(role)),
  getOpenAPISpecBySlug: ({ role }) => canReadOpenApiSpecs(membership(role)),
  listOpenAPISpecVersions: ({ role }) => canReadOpenApiSpecs(membership(role)),
  getLatestOpenAPISpecVersion: ({ role }) => canReadOpenApiSpecs(membership(role)),
  getOpenAPISpecVersionById: ({ role }) => canReadOpenApiSpecs(membership(role)),
  createOpenAPISpec: ({ role }) => canManageOpenApiSpecs(membership(role)),
  createOrUpdateOpenAPISpecBySlug: ({ role }) => canManageOpenApiSpecs(membership(role)),
  updateOpenAPISpecBySlug: ({ role }) => canManageOpenApiSpecs(membership(role)),
  deleteOpenAPISpecBySlug: ({ role }) => canManageOpenApiSpecs(membership(role)),
  // Embeds of web pages in a space: whoever sees the space.
  getEmbedByUrlInSpace: space('view'),
  // Docs sites (site-policy): the organization reads them; its admins change them and see share-link keys.
  listSites: ({ role }) => canReadSites(membership(role)),
  getSiteById: ({ role }) => canReadSites(membership(role)),
  trackEventsInSiteById: ({ role }) => canReadSites(membership(role)),
  aggregateSiteEvents: ({ role }) => canReadSites(membership(role)),
  listSiteSpaces: ({ role }) => canReadSites(membership(role)),
  listSiteSections: ({ role }) => canReadSites(membership(role)),
  listSiteSectionGroups: ({ role }) => canReadSites(membership(role)),
  getSiteStructure: ({ role }) => canReadSites(membership(role)),
  listSiteAdaptiveTemplateConditions: ({ role }) => canReadSites(membership(role)),
  getSiteCustomizationById: ({ role }) => canReadSites(membership(role)),
  // A site space's customization shows only to those who see its space (a guest sees none of the gate's spaces).
  getSiteSpaceCustomizationById: (person, targets) => canReadSites(membership(person.role)) && space('view')(person, targets),
  listSiteShareLinks: ({ role }) => canSeeShareKeys(membership(role)),
  listSiteRedirects: ({ role }) => canReadSites(membership(role)),
  getSiteRedirectBySource: ({ role }) => canReadSites(membership(role)),
  getSiteAdaptiveSchema: ({ role }) => canManageSites(membership(role)),
  getSitePublishingAuthById: ({ role }) => canManageSites(membership(role)),
  getSitePublishingPreviewById: ({ role }) => canReadSites(membership(role)),
  searchSiteContent: ({ role }) => canReadSites(membership(role)),
  listPermissionsAggregateInSite: ({ role }) => canManageSites(membership(role)),
  ...Object.fromEntries([
    'updateSitePublishingAuthById', 'regenerateSitePublishingAuthById',
    'createSite', 'updateSiteById', 'deleteSiteById', 'publishSite', 'unpublishSite', 'updateSiteAdaptiveSchema',
    'addSpaceToSite', 'updateSiteSpaceById', 'moveSiteSpace', 'deleteSiteSpaceById',
    'addSectionToSite', 'updateSiteSectionById', 'deleteSiteSectionById',
    'addSectionGroupToSite', 'updateSiteSectionGroupById', 'deleteSiteSectionGroupById', 'addSectionToGroup', 'removeSectionFromGroup',
    'sortSiteStructure', 'moveSiteSection', 'moveSiteSectionGroup',
    'createSiteShareLink', 'updateSiteShareLinkById', 'deleteSiteShareLinkById',
    'createSiteRedirect', 'updateSiteRedirectById', 'deleteSiteRedirectById',
    'updateSiteCustomizationById', 'overrideSiteSpaceCustomizationById', 'deleteSiteSpaceCustomizationById',
  ].map((operationId): [string, Rule] => [operationId, ({ role }) => canManageSites(membership(role))])),
};

/** Operations made for people outside the organization: not refused to another organization's admin. */
const JOINING_OPERATIONS = new Set(['joinOrganizationWithInvite', 'joinOrganization']);

/** Reads of a space's content and discussions: whoever sees the space (space-policy `view`). */
const SPACE_READ = /^\/spaces\/\{spaceId\}\/(change-requests|content|comments|commenters|links|search)/;

/**
 * Reads whose 404 is also a state of the resource, so that "let through" cannot be told from "refused" by the
 * status: a space never synchronized with Git has no Git info for anyone.
 */
const STATEFUL_404 = new Set(['getSpaceGitInfo']);

function ruleOf(operation: OperationInfo): Rule | undefined {
  if (STATEFUL_404.has(operation.operationId)) return undefined;
  return RULES[operation.operationId] ?? (operation.method === 'get' && SPACE_READ.test(operation.contractPath) ? space('view') : undefined);
}

/** Lowest role first, so the refusals run before the first role allowed changes the resource. */
const ROLES: RoleOrGuest[] = [null, 'read', 'comment', 'edit', 'review', 'create', 'admin'];

describeEachDialect('access matrices', (dialect) => {
  const server = useTestServer({ dialect });

  it('answers another organization 404 on every operation with an id, and each role what the policy says, changing nothing when refused', async () => {
    const started = Date.now();
    const contract = loadBundledContract();
    const quire = server.running.quire;
    // A rule under a name that is no operation would silently check nothing.
    const known = new Set(quire.operations.map((operation) => operation.operationId));
    expect(Object.keys(RULES).filter((operationId) => !known.has(operationId))).toEqual([]);
    const operations = quire.operations.filter((operation) => quire.implemented.has(operation.operationId) && operation.contractPath.includes('{')).sort(runOrder);
    const world = await buildWorld(server, 'Matrix organization');
    const outsider = await newOrg(server, 'Outsider organization');
    const people: Person[] = [];
    const tokens = new Map<Person, string>();
    for (const role of ROLES) {
      const person = role === 'admin' ? { role, userId: world.org.userId, token: world.org.token } : { role, ...(await newMember(server, world.org, role)) };
      people.push(person);
      tokens.set(person, person.token);
    }
    const failures: string[] = [];
    let requests = 0;
    let crossChecked = 0;
    const withoutRule: string[] = [];
    const roleCells = { checked: 0, allowed: 0, refused: 0 };
    const snapshot = async (url: string | undefined) => (url ? (await sendRaw('get', url, { token: world.org.token })).text : '');

    /** A refusal: the expected statuses, the error shape, and the resource as it was. */
    const expectRefused = async (label: string, operation: OperationInfo, token: string, statuses: number[]) => {
      const request = validRequest(contract, operation, world);
      const url = snapshotUrl(server.url, operation, quire.operations, world);
      const before = await snapshot(url);
      const answer = await sendValid(server.url, operation, request, token);
      requests += 1;
      if (!statuses.includes(answer.status)) failures.push(`${label}: ${answer.status} where ${statuses.join(' or ')} was due: ${answer.text.slice(0, 160)}`);
      else if (!hasErrorShape(answer)) failures.push(`${label}: ${answer.status} without the error shape`);
      if (url && (await snapshot(url)) !== before) failures.push(`${label}: refused, but ${url} changed`);
    };

    // An operation sent with a made-up id (no provider gives its parameter yet) answers 404 or 400 to everyone
    // whatever the policy, so it proves nothing here; the figures list it until its family registers a provider.
    const withoutProvider = operations.filter((operation) => validRequest(contract, operation, world).missing.length > 0).map((operation) => operation.operationId);

    // Every refusal of another organization first: nothing may change, so the roles below see the same world.
    for (const operation of operations) {
      const label = `${operation.operationId} as another organization's admin`;
      if (withoutProvider.includes(operation.operationId)) continue;
      if (operation.contractPath.startsWith('/integrations/')) continue; // integrations are named globally, not per organization: see below
      // An e-mail domain is no organization's object: another organization's admin gets 200 with none of this
      // organization in it (test/email-domains.test.ts), not a 404.
      if (operation.contractPath.startsWith('/email-domains/')) continue;
      // Joining is what people outside an organization do: with the invitation's secret another organization's
      // admin joins (test/organization-invites.test.ts checks another organization's invitation answers 404),
      // and by e-mail domain they get 400 for a domain the organization does not declare.
      if (JOINING_OPERATIONS.has(operation.operationId)) continue;
      // `/user/...` is the caller's own (their sessions): another person's session id is no object of theirs
      // and ends nothing, answering 204 like an ended one (test/sign-in.test.ts, deleteUserSession), not 404.
      if (operation.contractPath.startsWith('/user/')) continue;
      await expectRefused(label, operation, outsider.token, [404]);
      crossChecked += 1;
    }

    for (const operation of operations) {
      if (withoutProvider.includes(operation.operationId)) continue;
      const rule = ruleOf(operation);
      if (!rule) {
        withoutRule.push(operation.operationId);
        continue;
      }
      for (const person of people) {
        const label = `${operation.operationId} as ${person.role ?? 'guest'}`;
        const allowed = rule(person, { userId: world.ids.userId!, changeRequestCreator: world.org.userId });
        roleCells.checked += 1;
        if (!allowed) {
          roleCells.refused += 1;
          // The gate's change request is merged by then (mergeChangeRequest runs first), and a merged request
          // refuses every review with 409 before the author rule is reached.
          await expectRefused(label, operation, tokens.get(person)!, operation.operationId === 'submitChangeRequestReview' ? [403, 404, 409] : [403, 404]);
          continue;
        }
        roleCells.allowed += 1;
        const answer = await sendValid(server.url, operation, validRequest(contract, operation, world), tokens.get(person)!);
        requests += 1;
        if ([401, 403, 404].includes(answer.status) || answer.status >= 500) failures.push(`${label}: ${answer.status} where the policy allows it: ${answer.text.slice(0, 160)}`);
      }
    }

    console.log([
      `[access matrices ${dialect}] ${operations.length} operations with an id; another organization refused on ${crossChecked} (integrations are named globally and have their own suite)`,
      `  roles ${ROLES.map((role) => role ?? 'guest').join(', ')}: ${roleCells.checked} cells (${roleCells.allowed} allowed, ${roleCells.refused} refused) over ${operations.length - withoutRule.length} operations; no rule yet: ${withoutRule.join(', ') || 'none'}`,
      `  no provider for a path parameter yet (not checked): ${withoutProvider.join(', ') || 'none'}`,
      `  ${requests} requests; failures: ${failures.length}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
      ...failures.map((failure) => `  FAIL ${failure}`),
    ].join('\n'));
    expect(failures).toEqual([]);
  }, 600_000);
});
