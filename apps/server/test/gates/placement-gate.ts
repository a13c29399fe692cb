import { listOperations, type OpenApiDocument } from '../../src/http/openapi/contract.js';
import type { ListedOperation } from '../../../../scripts/lib/operation-lists.mjs';
import { templateKey as addressOf } from './wire-gate.js';

/**
 * The placement gate: Quire's contract against the public API's description (`@gitbook/api`'s
 * `spec/openapi.json`), by name and address only (the wire gate checks the answers). It finds
 * (a) an operationId that the two place at different addresses, (b) an address that the two name differently,
 * and (c) a public operation of a family Quire serves that Quire neither implements nor allow-lists with a
 * reason (`placement-allow-list.ts`). An address is a method and a path template, path parameter names
 * ignored: `{spaceId}` and `{id}` at the same place are the same address to a client.
 */

/** A group of public operations Quire does not implement, with why. */
export interface AllowGroup {
  reason: string;
  operationIds: string[];
}

/** The allow-list's two parts, by the name the gate's messages use. */
export type AllowList = Record<'NOT_SERVED' | 'NOT_YET_BUILT', AllowGroup[]>;

export interface PlacementInput {
  publicDescription: OpenApiDocument;
  contract: OpenApiDocument;
  allowList: AllowList;
  /** `scripts/public-operations.txt`: operations of Quire's that the file says are the public API's, placed as it places them. */
  publicOperationsList: ListedOperation[];
}

export interface FamilyFigures {
  /** A public top-level tag (`sites`), its sub-tags (`site-redirects`...) folded in. */
  family: string;
  publicOperations: number;
  implemented: number;
  /** Quire's tags of the operations the family shares with Quire: how the public family maps onto Quire's. */
  quireTags: string[];
}

export interface PlacementFigures {
  publicOperations: number;
  quireOperations: number;
  servedFamilies: number;
  publicOperationsOfServedFamilies: number;
  /** Operations both documents have under the same name at the same address. */
  shared: number;
  /** Findings (a) and (b). */
  mismatched: number;
  allowListed: Record<keyof AllowList, number>;
  /** Finding (c). */
  unlisted: number;
}

export interface PlacementResult {
  problems: string[];
  figures: PlacementFigures;
  families: FamilyFigures[];
}

interface Placed {
  operationId: string;
  route: string;
  address: string;
  tags: string[];
}

/**
 * Tags that mark operations across families instead of naming one: the public description tags the
 * operations of its critical path `critical` beside their family's own tag.
 */
const MARKER_TAGS = new Set(['critical']);

function placed(document: OpenApiDocument): Placed[] {
  return listOperations(document).map((operation) => ({
    operationId: operation.operationId,
    route: `${operation.method.toUpperCase()} ${operation.contractPath}`,
    address: addressOf(operation.method, operation.contractPath),
    tags: operation.tags,
  }));
}

/**
 * The families of a public operation: each tag's top-level tag (`x-parent`, the public reference's own
 * grouping: `site-redirects` is a part of `sites`, `glossary` of `translations`); a tag the description uses
 * without declaring it (`agents`) is a family of its own.
 */
function familiesIn(publicDescription: OpenApiDocument): (operation: Placed) => string[] {
  const parentOf = new Map((publicDescription.tags ?? []).map((tag) => [tag.name, typeof tag['x-parent'] === 'string' ? tag['x-parent'] : tag.name]));
  return (operation) => [...new Set(operation.tags.filter((tag) => !MARKER_TAGS.has(tag)).map((tag) => parentOf.get(tag) ?? tag))];
}

const byKey = <K extends keyof Placed>(operations: Placed[], key: K) => new Map(operations.map((operation) => [operation[key], operation]));

export function checkPlacement(input: PlacementInput): PlacementResult {
  const publicOperations = placed(input.publicDescription);
  const quireOperations = placed(input.contract);
  const publicById = byKey(publicOperations, 'operationId');
  const publicByAddress = byKey(publicOperations, 'address');
  const quireById = byKey(quireOperations, 'operationId');
  const problems: string[] = [];

  let mismatched = 0;
  for (const quire of quireOperations) {
    const sameName = publicById.get(quire.operationId);
    if (sameName && sameName.address !== quire.address) {
      mismatched++;
      problems.push(`(a) ${quire.operationId}: Quire places it at ${quire.route}, the public API at ${sameName.route}`);
    }
    const sameAddress = publicByAddress.get(quire.address);
    if (sameAddress && sameAddress.operationId !== quire.operationId) {
      mismatched++;
      problems.push(`(b) ${quire.route}: Quire names it ${quire.operationId}, the public API ${sameAddress.operationId}`);
    }
  }
  const shared = quireOperations.filter((quire) => publicById.get(quire.operationId)?.address === quire.address);

  const familiesOf = familiesIn(input.publicDescription);
  const families = new Map<string, FamilyFigures>();
  for (const operation of publicOperations) {
    const quire = quireById.get(operation.operationId);
    for (const family of familiesOf(operation)) {
      const figures = families.get(family) ?? { family, publicOperations: 0, implemented: 0, quireTags: [] };
      figures.publicOperations++;
      if (quire) {
        figures.implemented++;
        figures.quireTags = [...new Set([...figures.quireTags, ...quire.tags])].sort();
      }
      families.set(family, figures);
    }
  }
  const served = [...families.values()].filter((family) => family.implemented > 0).sort((a, b) => a.family.localeCompare(b.family));
  const isServed = (operation: Placed) => familiesOf(operation).some((family) => families.get(family)!.implemented > 0);
  const ofServedFamilies = publicOperations.filter(isServed);

  const allowed = new Map<string, keyof AllowList>();
  for (const part of ['NOT_SERVED', 'NOT_YET_BUILT'] as const) {
    for (const group of input.allowList[part]) {
      if (!group.reason.trim()) problems.push(`${part}: a group without a reason (${group.operationIds.join(', ')})`);
      for (const operationId of group.operationIds) {
        const operation = publicById.get(operationId);
        if (allowed.has(operationId)) problems.push(`${operationId}: listed twice (${allowed.get(operationId)} and ${part})`);
        else if (!operation) problems.push(`${operationId} in ${part}: not an operation of the public description: remove it from ${part}`);
        else if (quireById.has(operationId)) problems.push(`${operationId}: implemented now: remove it from ${part}`);
        else if (!isServed(operation)) problems.push(`${operationId} in ${part}: not of a family Quire serves: remove it from ${part}`);
        allowed.set(operationId, part);
      }
    }
  }

  const unlisted = ofServedFamilies.filter((operation) => !quireById.has(operation.operationId) && !allowed.has(operation.operationId));
  for (const operation of unlisted) {
    problems.push(`(c) ${operation.operationId} (${operation.route}; ${familiesOf(operation).join(', ')}): a public operation of a family Quire serves, neither implemented nor in NOT_SERVED or NOT_YET_BUILT`);
  }

  // scripts/public-operations.txt says its operations are the public API's, named and placed as it has them.
  for (const listed of input.publicOperationsList) {
    const operation = publicById.get(listed.operationId);
    if (operation?.address !== addressOf(listed.method, listed.path)) {
      problems.push(`scripts/public-operations.txt: ${listed.method.toUpperCase()} ${listed.path} ${listed.operationId} is ${operation ? `at ${operation.route}` : 'not an operation'} in the public description`);
    }
  }

  const count = (part: keyof AllowList) => [...allowed.values()].filter((value) => value === part).length;
  return {
    problems,
    families: served,
    figures: {
      publicOperations: publicOperations.length,
      quireOperations: quireOperations.length,
      servedFamilies: served.length,
      publicOperationsOfServedFamilies: ofServedFamilies.length,
      shared: shared.length,
      mismatched,
      allowListed: { NOT_SERVED: count('NOT_SERVED'), NOT_YET_BUILT: count('NOT_YET_BUILT') },
      unlisted: unlisted.length,
    },
  };
}

/** The figures as the gate prints them. */
export function renderPlacement(result: PlacementResult): string {
  const { figures } = result;
  return [
    `placement gate: ${figures.publicOperations} public operations, ${figures.quireOperations} of Quire's; ${figures.servedFamilies} public families served ` +
      `(${figures.publicOperationsOfServedFamilies} public operations); ${figures.shared} shared (same name, same address), ${figures.mismatched} mismatched; ` +
      `allow-listed: ${figures.allowListed.NOT_SERVED} NOT_SERVED, ${figures.allowListed.NOT_YET_BUILT} NOT_YET_BUILT; ${figures.unlisted} unlisted`,
    ...result.families.map((family) => `  ${family.family}: ${family.implemented}/${family.publicOperations} implemented, in Quire's ${family.quireTags.filter((tag) => tag !== 'Additions').join(', ')}`),
  ].join('\n');
}
