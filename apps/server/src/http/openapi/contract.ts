/*
 * Quire's own contract: the bundled openapi/v1.yaml the server routes and validates by. "Contract", never
 * "spec", so that it is not mistaken for the OpenAPI specs users upload (src/openapi-specs/).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type JsonObject = { [key: string]: unknown };

export interface OpenApiOperation extends JsonObject {
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  requestBody?: { required?: boolean; content?: JsonObject } & JsonObject;
  parameters?: unknown[];
  responses?: JsonObject;
}

export interface OpenApiDocument extends JsonObject {
  openapi: string;
  info: JsonObject;
  servers?: Array<{ url: string } & JsonObject>;
  security?: Array<Record<string, string[]>>;
  tags?: Array<{ name: string } & JsonObject>;
  paths: Record<string, JsonObject>;
  components?: Record<string, Record<string, unknown>>;
}

export interface OperationInfo {
  operationId: string;
  method: HttpMethod;
  /** The path as the contract writes it, e.g. `/orgs/{organizationId}`. */
  contractPath: string;
  /** The Express route, with the base path, e.g. `/v1/orgs/:organizationId`. */
  expressPath: string;
  tags: string[];
  /** False only for operations whose `security` is explicitly empty or lists the empty requirement `{}`. */
  requiresAuth: boolean;
  /**
   * True for operations whose `security` lists a scheme beside the empty requirement (`[{bearerAuth: []}, {}]`):
   * a bearer token is optional, and when one is sent it is authenticated like anywhere else (401 when invalid).
   */
  acceptsAuth: boolean;
  requestBodyRequired: boolean;
  hasRequestBody: boolean;
  definition: OpenApiOperation;
}

/**
 * How the router places an operation: `x-quire-rest-parameter` names a path parameter that takes the rest of
 * the path, slashes included (a page path).
 */
export function routeOptions(operation: OperationInfo): { restParameter?: string } {
  const name = operation.definition['x-quire-rest-parameter'];
  return typeof name === 'string' ? { restParameter: name } : {};
}

/** The bundled contract that `packages/api-types` generates from openapi/v1.yaml. */
export function bundledContractFile(): string {
  return createRequire(import.meta.url).resolve('@quire/api-types/openapi.json');
}

const loaded = new Map<string, OpenApiDocument>();

/** Read once per process and never modified (validators work on pruned copies). */
export function loadBundledContract(file = bundledContractFile()): OpenApiDocument {
  const cached = loaded.get(file);
  if (cached) return cached;
  const contract = JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
  if (typeof contract.openapi !== 'string' || typeof contract.paths !== 'object') throw new Error(`${file} is not an OpenAPI document`);
  loaded.set(file, contract);
  return contract;
}

/** `/v1` from `servers: [{url: /v1}]`; only the path of the first server counts. */
export function basePath(contract: OpenApiDocument): string {
  const url = contract.servers?.[0]?.url ?? '';
  const path = /^[a-z]+:\/\//i.test(url) ? new URL(url).pathname : url;
  return path.replace(/\/+$/, '');
}

export function toExpressPath(base: string, contractPath: string): string {
  return base + contractPath.replace(/\{([^}/]+)\}/g, ':$1');
}

/**
 * The order operations are listed in (`npm run ops`, `listOperations`): by path, a parameter after the static
 * segments at the same place (`/versions/latest` before `/versions/{versionId}`). Routing does not depend on
 * it (router.ts prefers static segments itself).
 */
export function compareContractPaths(a: string, b: string): number {
  const key = (path: string) => path.replace(/\{[^}]+\}/g, '\uffff');
  const ka = key(a);
  const kb = key(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export function listOperations(contract: OpenApiDocument): OperationInfo[] {
  const base = basePath(contract);
  const operations: OperationInfo[] = [];
  for (const contractPath of Object.keys(contract.paths).sort(compareContractPaths)) {
    const item = contract.paths[contractPath] ?? {};
    for (const method of HTTP_METHODS) {
      const definition = item[method] as OpenApiOperation | undefined;
      if (!definition) continue;
      if (!definition.operationId) throw new Error(`${method.toUpperCase()} ${contractPath} has no operationId`);
      const security = definition.security ?? contract.security ?? [];
      operations.push({
        operationId: definition.operationId,
        method,
        contractPath,
        expressPath: toExpressPath(base, contractPath),
        tags: definition.tags ?? [],
        requiresAuth: security.length > 0 && !security.some((requirement) => Object.keys(requirement).length === 0),
        acceptsAuth: security.some((requirement) => Object.keys(requirement).length > 0),
        requestBodyRequired: definition.requestBody?.required === true,
        hasRequestBody: definition.requestBody !== undefined,
        definition,
      });
    }
  }
  return operations;
}
