import type { JsonObject, OpenApiDocument } from './contract.js';

function decodePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * A copy of the contract that holds one path item and only the components it reaches through `$ref`s
 * (followed transitively). Each route's validator is built from one of these, so that neither its route
 * lookup nor its schema compilation grows with the size of the whole contract.
 */
export function pruneContract(contract: OpenApiDocument, contractPath: string, options: { responses?: boolean } = {}): OpenApiDocument {
  const original = contract.paths[contractPath];
  if (!original) throw new Error(`the contract has no path ${contractPath}`);
  // Without responses, only what requests need is kept (request validators then compile less).
  const pathItem = options.responses === false
    ? Object.fromEntries(Object.entries(original).map(([key, value]) =>
        [key, value !== null && typeof value === 'object' && 'responses' in value ? { ...value, responses: {} } : value]))
    : original;
  const components: Record<string, Record<string, unknown>> = {};
  const visited = new Set<string>();

  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as JsonObject)) {
      if (key === '$ref' && typeof value === 'string') follow(value);
      else visit(value);
    }
  };

  const follow = (ref: string): void => {
    if (visited.has(ref)) return;
    visited.add(ref);
    const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
    if (!match) throw new Error(`unsupported $ref ${ref} under ${contractPath}: the bundled contract should only hold component refs`);
    const section = match[1]!;
    const name = decodePointerToken(match[2]!);
    const target = contract.components?.[section]?.[name];
    if (target === undefined) throw new Error(`unresolved $ref ${ref} under ${contractPath}`);
    (components[section] ??= {})[name] = target;
    visit(target);
  };

  visit(pathItem);
  const securitySchemes = contract.components?.securitySchemes;
  if (securitySchemes) components.securitySchemes = securitySchemes;

  const pruned: OpenApiDocument = {
    openapi: contract.openapi,
    info: contract.info,
    paths: { [contractPath]: pathItem },
    components,
  };
  if (contract.servers) pruned.servers = contract.servers;
  if (contract.security) pruned.security = contract.security;
  // Deep copy: the validator library annotates and rewrites the document it is given.
  return structuredClone(pruned);
}
