import type { OpenApiDocument, OperationInfo } from '../../src/http/openapi/contract.js';
import { registeredValidBody, type World } from './providers.js';
import { bodySchemaOf, parametersOf, validValue } from './contract-walk.js';

/** Requests of the gates, built from the contract and a world's real ids, and sent as raw bytes. */

export interface Answer {
  status: number;
  ms: number;
  text: string;
  contentType: string;
}

export interface ValidRequest {
  path: Record<string, string>;
  query: Record<string, string>;
  /** Undefined when the operation has no body. */
  body: unknown;
  /** The path parameters no provider gives (sent with a made-up id). */
  missing: string[];
}

/** GETs first, then writes, then deletes deepest path first, so a delete does not take others' resources. */
export function runOrder(a: OperationInfo, b: OperationInfo): number {
  const rank = (operation: OperationInfo) => (operation.method === 'get' ? 0 : operation.method === 'delete' ? 2 : 1);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (a.method === 'delete') return b.contractPath.split('/').length - a.contractPath.split('/').length;
  return 0;
}

export function validRequest(contract: OpenApiDocument, operation: OperationInfo, world: World): ValidRequest {
  const parameters = parametersOf(contract, operation);
  const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
  const bodySchema = bodySchemaOf(contract, operation);
  return {
    path: Object.fromEntries(pathParameters.map((parameter) => [parameter.name, world.ids[parameter.name] ?? 'noProviderYet000000'])),
    query: Object.fromEntries(parameters.filter((parameter) => parameter.in === 'query' && parameter.required).map((parameter) => [parameter.name, String(validValue(contract, parameter.schema))])),
    body: registeredValidBody(operation.operationId, world)?.body ?? (bodySchema ? validValue(contract, bodySchema) : undefined),
    missing: pathParameters.filter((parameter) => !(parameter.name in world.ids)).map((parameter) => parameter.name),
  };
}

export function urlOf(root: string, operation: OperationInfo, path: Record<string, string>, query: Record<string, string | string[]> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) for (const one of Array.isArray(value) ? value : [value]) search.append(name, one);
  const filled = operation.contractPath.replace(/\{([^}]+)\}/g, (_, name: string) => path[name] ?? 'none');
  const text = search.toString();
  // Bad percent-encoding must reach the server as it is.
  return `${root}/v1${filled}${text ? `?${text.replace(/%25ZZ%25/g, '%ZZ%')}` : ''}`;
}

export async function sendRaw(method: string, url: string, init: { token?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer> {
  const begin = performance.now();
  const response = await fetch(url, {
    method: method.toUpperCase(),
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers },
    // A copy typed as a plain ArrayBuffer view, which fetch's BodyInit accepts (Buffer's may be shared memory).
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : new Uint8Array(init.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - begin, text, contentType: response.headers.get('content-type') ?? '' };
}

/** Sends the valid request of the operation as the holder of `token`. */
export function sendValid(root: string, operation: OperationInfo, request: ValidRequest, token: string): Promise<Answer> {
  const body = request.body !== undefined && operation.method !== 'get' ? JSON.stringify(request.body) : undefined;
  return sendRaw(operation.method, urlOf(root, operation, request.path, request.query), { token, ...(body ? { headers: { 'content-type': 'application/json' }, body } : {}) });
}

/** Whether a 4xx answer carries exactly the error shape, with its status as code. */
export function hasErrorShape(answer: Answer): boolean {
  try {
    const parsed = JSON.parse(answer.text) as { error?: { code?: unknown; message?: unknown } };
    return parsed.error?.code === answer.status && typeof parsed.error.message === 'string' && Object.keys(parsed).length === 1 && answer.contentType.startsWith('application/json');
  } catch {
    return false;
  }
}

/**
 * The GET that shows what a write would change: its own path's, else its nearest parent's, where
 * implemented and every id is known. None for reads.
 */
export function snapshotUrl(root: string, operation: OperationInfo, operations: OperationInfo[], world: World): string | undefined {
  if (operation.method === 'get') return undefined;
  const segments = operation.contractPath.split('/');
  for (let end = segments.length; end > 1; end -= 1) {
    const prefix = segments.slice(0, end).join('/');
    const get = operations.find((candidate) => candidate.method === 'get' && candidate.contractPath === prefix);
    if (get && [...prefix.matchAll(/\{([^}]+)\}/g)].every((match) => world.ids[match[1]!])) return urlOf(root, get, world.ids);
  }
  return undefined;
}
