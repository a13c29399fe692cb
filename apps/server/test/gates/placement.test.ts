import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATION_LISTS, readOperationList } from '../../../../scripts/lib/operation-lists.mjs';
import { loadBundledContract, type OpenApiDocument } from '../../src/http/openapi/contract.js';
import { PLACEMENT_ALLOW_LIST } from './placement-allow-list.js';
import { checkPlacement, renderPlacement, type AllowList } from './placement-gate.js';
import { PUBLIC_SPEC_FILE } from './wire-gate.js';

/*
 * The placement gate (placement-gate.ts) on Quire's bundled contract and the public API's description, then
 * on small documents that show each fault it finds.
 */
describe('placement gate', () => {
  it("places and names every operation as the public API does, and implements or allow-lists each public one of the families Quire serves", () => {
    const result = checkPlacement({
      publicDescription: JSON.parse(readFileSync(PUBLIC_SPEC_FILE, 'utf8')) as OpenApiDocument,
      contract: loadBundledContract(),
      allowList: PLACEMENT_ALLOW_LIST,
      publicOperationsList: readOperationList(OPERATION_LISTS.public),
    });
    console.log(renderPlacement(result));
    expect(result.problems, 'fix Quire\'s name or address, implement the operation, or list it in test/gates/placement-allow-list.ts with its reason').toEqual([]);
  });

  const operation = (operationId: string, tags: string[]) => ({ operationId, tags, responses: {} });
  const document = (paths: Record<string, Record<string, unknown>>, tags: Array<{ name: string; 'x-parent'?: string }> = []): OpenApiDocument => ({ openapi: '3.1.0', info: {}, tags, paths });
  const publicDescription = document({
    '/spaces/{spaceId}': { get: operation('getSpaceById', ['spaces']) },
    '/spaces/{spaceId}/pdf': { get: operation('getSpacePDF', ['space-content', 'critical']) },
    '/spaces/{spaceId}/permissions/users/{userId}': { delete: operation('removeUserFromSpace', ['space-users']) },
    '/orgs/{organizationId}/translations': { get: operation('listTranslations', ['translations']) },
    '/orgs/{organizationId}/billing': { get: operation('getBilling', ['billing']) },
  }, [{ name: 'spaces' }, { name: 'space-content', 'x-parent': 'spaces' }, { name: 'space-users', 'x-parent': 'spaces' }, { name: 'translations' }, { name: 'billing' }]);
  const none: AllowList = { NOT_SERVED: [], NOT_YET_BUILT: [] };
  const check = (contract: OpenApiDocument, allowList: AllowList = none, publicOperationsList = [] as Array<{ method: string; path: string; operationId: string }>) =>
    checkPlacement({ publicDescription, contract, allowList, publicOperationsList });

  it('finds an operationId at another address, an address with another operationId, and a public operation of a served family neither implemented nor listed', () => {
    const result = check(document({
      '/spaces/{id}': { get: operation('getSpaceById', ['Spaces']) },
      '/spaces/{spaceId}/permissions/users/{userId}': { delete: operation('removeUserPermissionInSpace', ['Spaces']) },
      '/spaces/{spaceId}/export.pdf': { get: operation('getSpacePDF', ['Spaces']) },
    }));
    expect(result.problems).toEqual([
      '(a) getSpacePDF: Quire places it at GET /spaces/{spaceId}/export.pdf, the public API at GET /spaces/{spaceId}/pdf',
      '(b) DELETE /spaces/{spaceId}/permissions/users/{userId}: Quire names it removeUserPermissionInSpace, the public API removeUserFromSpace',
      '(c) removeUserFromSpace (DELETE /spaces/{spaceId}/permissions/users/{userId}; spaces): a public operation of a family Quire serves, neither implemented nor in NOT_SERVED or NOT_YET_BUILT',
    ]);
    // Path parameter names do not count: `{id}` where the public API says `{spaceId}` is the same address.
    expect(result.figures).toMatchObject({ publicOperations: 5, servedFamilies: 1, publicOperationsOfServedFamilies: 3, shared: 1, mismatched: 2, unlisted: 1 });
    expect(result.families).toEqual([{ family: 'spaces', publicOperations: 3, implemented: 2, quireTags: ['Spaces'] }]);
  });

  it('refuses allow-list entries that Quire implements, that the public API lacks, outside the served families, listed twice or without a reason', () => {
    const contract = document({ '/spaces/{spaceId}': { get: operation('getSpaceById', ['Spaces']) }, '/spaces/{spaceId}/pdf': { get: operation('getSpacePDF', ['Spaces']) } });
    const result = check(contract, {
      NOT_SERVED: [{ reason: 'translations', operationIds: ['listTranslations', 'getSpaceById'] }],
      NOT_YET_BUILT: [{ reason: ' ', operationIds: ['removeUserFromSpace', 'getSpacePDF', 'removeUserFromSpace', 'getNothing'] }],
    });
    expect(result.problems).toEqual([
      'listTranslations in NOT_SERVED: not of a family Quire serves: remove it from NOT_SERVED',
      'getSpaceById: implemented now: remove it from NOT_SERVED',
      'NOT_YET_BUILT: a group without a reason (removeUserFromSpace, getSpacePDF, removeUserFromSpace, getNothing)',
      'getSpacePDF: implemented now: remove it from NOT_YET_BUILT',
      'removeUserFromSpace: listed twice (NOT_YET_BUILT and NOT_YET_BUILT)',
      'getNothing in NOT_YET_BUILT: not an operation of the public description: remove it from NOT_YET_BUILT',
    ]);
    expect(result.figures.allowListed).toEqual({ NOT_SERVED: 2, NOT_YET_BUILT: 3 });
  });

  it('holds scripts/public-operations.txt to its word: each line is the public API\'s operation at its address', () => {
    const contract = document({ '/spaces/{spaceId}': { get: operation('getSpaceById', ['Spaces']) } });
    const result = check(contract, { NOT_SERVED: [], NOT_YET_BUILT: [{ reason: 'not yet', operationIds: ['getSpacePDF', 'removeUserFromSpace'] }] }, [
      { method: 'get', path: '/spaces/{spaceId}', operationId: 'getSpaceById' },
      { method: 'get', path: '/spaces/{spaceId}/export', operationId: 'getSpacePDF' },
      { method: 'get', path: '/spaces/{spaceId}/files', operationId: 'listFiles' },
    ]);
    expect(result.problems).toEqual([
      'scripts/public-operations.txt: GET /spaces/{spaceId}/export getSpacePDF is at GET /spaces/{spaceId}/pdf in the public description',
      'scripts/public-operations.txt: GET /spaces/{spaceId}/files listFiles is not an operation in the public description',
    ]);
  });
});
