import { unwrap } from '@quire/client';
import type { RoleOrGuest } from '../../src/policies/roles.js';
import { expect, it } from 'vitest';
import { loadBundledContract, type OperationInfo } from '../../src/http/openapi/contract.js';
import { describeEachDialect } from '../dialects.js';
import { newMember, useTestServer } from '../helpers.js';
import { buildWorld, type World } from './providers.js';
import { sendRaw, urlOf, validRequest } from './requests.js';
import { resolve } from './contract-walk.js';

/*
 * The filter gate. A list filtered by the id of something the caller cannot see must answer exactly as it
 * does for an id of nothing: otherwise the list tells whether that thing exists, and what it is linked to
 * (a site answered for `?space=<a space the caller cannot see>` says that space exists and is published
 * there). For every list operation of the bundled contract and every query parameter of it that takes an id (its
 * description says so), the gate sends, as each role of an organization (guest to admin) and as the admin of
 * another organization on that organization's own lists, the valid request with the parameter set to an
 * unknown id, then to each id of the same kind the caller cannot see: the other organization's, and a space of
 * the caller's own organization that only its admins see. Status and body must be equal.
 */

/**
 * The kind of id each filter takes, as the name of the path parameter (and gate provider) of that kind. A
 * filter missing here fails the gate: a new one must say what it filters by.
 */
const ID_KINDS: Record<string, string> = {
  space: 'spaceId',
  creator: 'userId',
  contributor: 'userId',
  requestedReviewer: 'userId',
  authors: 'userId',
  conversationsIssuesCluster: 'clusterId',
  cluster: 'clusterId',
  conversation: 'conversationId',
  targetPage: 'pageId',
  'listIntegrations.owner': 'organizationId',
  'listTeamsInOrganizationById.owner': 'userId',
};

const UNKNOWN_ID = 'noSuchThing0000000000';
const ROLES: RoleOrGuest[] = [null, 'read', 'comment', 'edit', 'review', 'create', 'admin'];

interface Caller {
  label: string;
  token: string;
  /** The world whose ids fill the path of the lists it reads. */
  own: World;
  /** Ids of each kind the caller cannot see. */
  hidden: Record<string, string[]>;
}

/** Query parameters that take an id, by their description ("id of a space", "a user id", "with this id"). */
function idFilters(contract: ReturnType<typeof loadBundledContract>, operation: OperationInfo): string[] {
  const item = contract.paths[operation.contractPath] as { parameters?: unknown[] };
  return [...(item.parameters ?? []), ...(operation.definition.parameters ?? [])]
    .map((raw) => resolve(contract, raw) as { name: string; in: string; description?: string })
    // `page` is a list cursor, not an id of anything.
    .filter((parameter) => parameter.in === 'query' && parameter.name !== 'page' && /\bids?\b/i.test(parameter.description ?? ''))
    .map((parameter) => parameter.name);
}

const isList = (operation: OperationInfo) => operation.method === 'get' && (operation.operationId.startsWith('list') || /"limit"/.test(JSON.stringify(operation.definition.parameters ?? [])));

describeEachDialect('filter gate', (dialect) => {
  const server = useTestServer({ dialect });

  it('answers a list filtered by an id the caller cannot see exactly as one filtered by an unknown id, for every role and another organization', async () => {
    const started = Date.now();
    const contract = loadBundledContract();
    const quire = server.running.quire;
    const world = await buildWorld(server, 'Filter organization');
    const other = await buildWorld(server, 'Other filter organization');
    const orgPath = { params: { path: { organizationId: world.org.organizationId } } };
    // A space only the organization's admins see, published on the world's site like the gate space.
    const hiddenSpace = await unwrap(world.org.client.POST('/orgs/{organizationId}/spaces', { ...orgPath, body: { title: 'Admins only' } }));
    await unwrap(world.org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: hiddenSpace.id } }, body: { defaultLevel: null } }));
    await unwrap(world.org.client.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: { path: { organizationId: world.org.organizationId, siteId: world.ids.siteId! } }, body: { spaceId: hiddenSpace.id } as never }));

    const kinds = [...new Set(Object.values(ID_KINDS))];
    const idsOf = (source: World) => Object.fromEntries(kinds.map((kind) => [kind, [source.ids[kind]!]]));
    const callers: Caller[] = [];
    for (const role of ROLES) {
      const member = role === 'admin' ? world.org : await newMember(server, world.org, role);
      const hidden = idsOf(other);
      // The admins-only space, for those who indeed cannot see it.
      const probe = await sendRaw('get', `${server.url}/v1/spaces/${hiddenSpace.id}`, { token: member.token });
      if (probe.status === 404) hidden.spaceId!.push(hiddenSpace.id);
      callers.push({ label: role ?? 'guest', token: member.token, own: world, hidden });
    }
    callers.push({ label: "another organization's admin", token: other.org.token, own: other, hidden: idsOf(world) });

    const operations = quire.operations.filter((operation) => quire.implemented.has(operation.operationId) && isList(operation));
    const failures: string[] = [];
    const unmapped: string[] = [];
    let filters = 0;
    let requests = 0;
    let comparisons = 0;
    for (const operation of operations) {
      for (const name of idFilters(contract, operation)) {
        const kind = ID_KINDS[`${operation.operationId}.${name}`] ?? ID_KINDS[name];
        if (!kind) {
          unmapped.push(`${operation.operationId} ?${name}`);
          continue;
        }
        filters += 1;
        for (const caller of callers) {
          const request = validRequest(contract, operation, caller.own);
          const ask = async (value: string) => {
            requests += 1;
            const answer = await sendRaw('get', urlOf(server.url, operation, request.path, { ...request.query, [name]: value }), { token: caller.token });
            return `${answer.status} ${answer.text}`;
          };
          const unknown = await ask(UNKNOWN_ID);
          for (const id of caller.hidden[kind] ?? []) {
            comparisons += 1;
            const answer = await ask(id);
            if (answer !== unknown) {
              failures.push(`${operation.operationId} ?${name}=<${kind} the caller cannot see> as ${caller.label}: ${answer.slice(0, 160)} where an unknown id answers ${unknown.slice(0, 160)}`);
            }
          }
        }
      }
    }

    for (const filter of unmapped) failures.push(`${filter} takes an id of no kind known to the gate: add it to ID_KINDS`);
    console.log([
      `[filter gate ${dialect}] ${operations.length} list operations, ${filters} filters taking an id, ${callers.length} callers (${callers.map((caller) => caller.label).join(', ')})`,
      `  ${requests} requests, ${comparisons} comparisons with an unknown id; failures: ${failures.length}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
      ...failures.map((failure) => `  FAIL ${failure}`),
    ].join('\n'));
    expect(failures).toEqual([]);
  }, 600_000);
});
