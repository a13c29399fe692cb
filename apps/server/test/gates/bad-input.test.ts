import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { loadBundledContract, type OperationInfo } from '../../src/http/openapi/contract.js';
import { describeEachDialect } from '../dialects.js';
import { useTestServer } from '../helpers.js';
import { bodyShapes } from './body-shapes.js';
import { buildWorld, providedParameters, type World } from './providers.js';
import { hasErrorShape, runOrder, sendRaw, snapshotUrl, urlOf as requestUrl, validRequest, type Answer } from './requests.js';
import { BAD_PATH_VALUES, badQueryValues, badValues, bodyFields, bodySchemaOf, parametersOf, Random, setAt, type Parameter } from './contract-walk.js';

/*
 * The bad-input gate. For every implemented operation of the bundled contract it builds a valid request from the
 * schemas and real ids (providers.ts), then sends mutations of every path and query parameter and body field,
 * and of the request as a whole (content type, encoding, size, JSON shape). Properties of every answer: no
 * 5xx; a 4xx carries the error shape with its status as code; none slower than GATE_SLOW_MS; a refused
 * request changes nothing (GETs of the resource and its parents, before and after, are equal); and the
 * server is healthy at the end. Each round mutates every parameter and field once, with a kind drawn from
 * a generator seeded by GATE_SEED, so a failure replays with the same seed and rounds.
 * Long run: GATE_SEED=<n> GATE_ROUNDS=<n> npx vitest run test/gates/bad-input.test.ts
 */

const SEED = Number(process.env.GATE_SEED ?? 15);
const ROUNDS = Number(process.env.GATE_ROUNDS ?? 1);
const SLOW_MS = Number(process.env.GATE_SLOW_MS ?? 5_000);
const WHOLE_PER_ROUND = 3;
const DEEP = '__gate_deep_nesting__';

interface Mutation {
  label: string;
  path?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: unknown;
  /** Sent as it is instead of the JSON of `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  noBody?: boolean;
  /** A request no operation may accept: a 2xx to it is a failure too. */
  mustRefuse?: boolean;
  /** Accepted, it must change nothing (an update with nothing in it): the GET before and after are equal. */
  changesNothing?: boolean;
  /** The statuses it may answer; undefined: anything below 500. */
  statuses?: number[];
}

interface Figures {
  operations: number;
  operationsWithRealIds: number;
  requests: number;
  refused: number;
  accepted: number;
  validAccepted: number;
  snapshotChecks: number;
  bodyShapes: number;
  /** Updates with nothing in them that were accepted, and how many of those a GET could check. */
  emptyUpdates: { accepted: number; checked: number };
  slowest: { ms: number; label: string };
  failures: string[];
  missingProviders: Set<string>;
}

function deepJson(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

describeEachDialect('bad-input gate', (dialect) => {
  const server = useTestServer({ dialect });

  it('answers every mutation of every operation without a 5xx, in the error shape, in time, changing nothing when it refuses', async () => {
    const started = Date.now();
    const contract = loadBundledContract();
    const quire = server.running.quire;
    const operations = quire.operations.filter((operation) => quire.implemented.has(operation.operationId)).sort(runOrder);
    const world = await buildWorld(server, 'Gate organization');
    const worldSeconds = (Date.now() - started) / 1000;
    const provided = providedParameters();
    const random = new Random(SEED);
    const figures: Figures = {
      operations: 0, operationsWithRealIds: 0, requests: 0, refused: 0, accepted: 0, validAccepted: 0, snapshotChecks: 0, bodyShapes: 0, emptyUpdates: { accepted: 0, checked: 0 },
      slowest: { ms: 0, label: '' }, failures: [], missingProviders: new Set(),
    };
    const auth = { authorization: `Bearer ${world.org.token}` };
    // A gzip body that inflates far past the body limit, made once.
    const bomb = gzipSync(JSON.stringify({ title: 'b'.repeat(20 * 1024 * 1024) }));

    const urlOf = (operation: OperationInfo, path: Record<string, string>, query: Record<string, string | string[]> = {}) => requestUrl(server.url, operation, path, query);
    const send = (method: string, url: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}) => sendRaw(method, url, { token: world.org.token, ...init });

    // Cursors of every list that has a next page, to send to the other lists.
    const cursors: string[] = [];
    for (const operation of operations.filter((candidate) => candidate.method === 'get')) {
      const parameters = parametersOf(contract, operation);
      if (!parameters.some((parameter) => parameter.name === 'page') || !parameters.some((parameter) => parameter.name === 'limit')) continue;
      const answer = await send('get', urlOf(operation, world.ids, { limit: '1' }));
      const next = answer.status === 200 ? (JSON.parse(answer.text) as { next?: { page?: string } }).next?.page : undefined;
      if (next) cursors.push(next);
    }

    // The GET that shows what a write would change (none for reads, which run a few requests at a time).
    const snapshotUrls = (operation: OperationInfo): string[] => {
      const url = snapshotUrl(server.url, operation, operations, world);
      return url ? [url] : [];
    };
    const snapshot = async (urls: string[]) => Promise.all(urls.map(async (url) => {
      const answer = await send('get', url);
      return `${answer.status} ${answer.text}`;
    }));

    for (const operation of operations) {
      figures.operations += 1;
      const parameters = parametersOf(contract, operation);
      const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
      const missing = pathParameters.filter((parameter) => !provided.has(parameter.name));
      for (const parameter of missing) figures.missingProviders.add(parameter.name);
      if (missing.length === 0) figures.operationsWithRealIds += 1;
      const { path: validPath, query: validQuery, body: validBody } = validRequest(contract, operation, world);
      const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
      const bodySchema = bodySchemaOf(contract, operation);
      const mutations = mutationsOf(operation, random, { pathParameters, queryParameters, bodySchema, validBody, cursors, bomb, contract });
      const shapes = bodyShapes(contract, operation, bodySchema, validBody);
      figures.bodyShapes += shapes.length;
      mutations.push(...shapes);

      let urls = snapshotUrls(operation);
      // A GET whose answer changes between two reads with nothing in between (signed URLs, clocks) proves nothing.
      const [first, second] = [await snapshot(urls), await snapshot(urls)];
      urls = urls.filter((_, index) => first[index] === second[index]);
      let before = await snapshot(urls);

      const attempt = async (mutation: Mutation): Promise<void> => {
        const label = `${operation.operationId} ${operation.method.toUpperCase()} ${operation.contractPath} [${mutation.label}]`;
        let body: string | Buffer | undefined;
        if (mutation.rawBody !== undefined) body = mutation.rawBody;
        else if (!mutation.noBody && (mutation.body !== undefined || (validBody !== undefined && operation.method !== 'get'))) {
          body = JSON.stringify(mutation.body !== undefined ? mutation.body : validBody).replace(JSON.stringify(DEEP), deepJson(5_000));
        }
        const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...mutation.headers };
        let answer: Answer;
        try {
          answer = await send(operation.method, urlOf(operation, { ...validPath, ...mutation.path }, { ...validQuery, ...mutation.query }), { headers, ...(body !== undefined ? { body } : {}) });
        } catch (error) {
          figures.failures.push(`${label}: no answer (${(error as Error).message})`);
          return;
        }
        figures.requests += 1;
        if (answer.ms > figures.slowest.ms) figures.slowest = { ms: Math.round(answer.ms), label };
        if (answer.ms > SLOW_MS) figures.failures.push(`${label}: answered in ${Math.round(answer.ms)} ms (bound ${SLOW_MS})`);
        if (mutation.statuses && !mutation.statuses.includes(answer.status) && answer.status < 500) {
          figures.failures.push(`${label}: ${answer.status} where ${mutation.statuses.join(' or ')} was due: ${answer.text.slice(0, 200)}`);
        }
        if (answer.status >= 500) {
          figures.failures.push(`${label}: ${answer.status} ${answer.text.slice(0, 200)}`);
          before = await snapshot(urls);
          return;
        }
        if (answer.status >= 400) {
          figures.refused += 1;
          const shaped = hasErrorShape(answer);
          if (!shaped) figures.failures.push(`${label}: ${answer.status} without the error shape: ${answer.text.slice(0, 200)}`);
          const after = await snapshot(urls);
          figures.snapshotChecks += urls.length;
          after.forEach((text, index) => {
            if (text !== before[index]) figures.failures.push(`${label}: refused with ${answer.status} but ${urls[index]} changed`);
          });
          before = after;
        } else {
          figures.accepted += 1;
          if (mutation.mustRefuse) figures.failures.push(`${label}: accepted with ${answer.status}`);
          const after = await snapshot(urls);
          if (mutation.changesNothing) {
            figures.emptyUpdates.accepted += 1;
            if (urls.length > 0) figures.emptyUpdates.checked += 1;
            after.forEach((text, index) => {
              if (text !== before[index]) figures.failures.push(`${label}: accepted with ${answer.status}, changing nothing, but ${urls[index]} changed${changedFields(before[index]!, text)}`);
            });
          }
          before = after;
        }
      };
      if (operation.method === 'get') {
        for (let at = 0; at < mutations.length; at += 4) await Promise.all(mutations.slice(at, at + 4).map(attempt));
      } else {
        for (const mutation of mutations) await attempt(mutation);
      }

      // The valid request last (a delete takes its resource), counted to show how many were truly valid.
      const body = validBody !== undefined && operation.method !== 'get' ? JSON.stringify(validBody) : undefined;
      const valid = await send(operation.method, urlOf(operation, validPath, validQuery), { headers: body ? { 'content-type': 'application/json' } : {}, ...(body ? { body } : {}) });
      figures.requests += 1;
      if (valid.status < 300) figures.validAccepted += 1;
      if (valid.status >= 500) figures.failures.push(`${operation.operationId} [the valid request]: ${valid.status} ${valid.text.slice(0, 200)}`);
    }

    const failures = figures.failures;
    const health = await fetch(`${server.url}/healthz`);
    const user = await fetch(`${server.url}/v1/user`, { headers: auth });
    console.log([
      `[bad-input gate ${dialect}] seed ${SEED}, rounds ${ROUNDS}: ${figures.operations} operations covered (${figures.operationsWithRealIds} with real ids), ${figures.requests} requests sent`,
      `  ${figures.refused} refused, ${figures.accepted} accepted; valid requests accepted: ${figures.validAccepted}/${figures.operations}; snapshot comparisons: ${figures.snapshotChecks}`,
      `  whole bodies (empty, unknown fields only, each optional field alone): ${figures.bodyShapes}; updates with nothing in them accepted: ${figures.emptyUpdates.accepted} (${figures.emptyUpdates.checked} checked unchanged by a GET)`,
      `  slowest answer ${figures.slowest.ms} ms (${figures.slowest.label}); ${cursors.length} cursors from other lists; no provider yet: ${[...figures.missingProviders].join(', ') || 'none'}`,
      `  failures: ${failures.length}; health afterwards: /healthz ${health.status}, /v1/user ${user.status}; ${((Date.now() - started) / 1000).toFixed(1)} s (ids made in ${worldSeconds.toFixed(1)} s)`,
      ...failures.slice(0, 60).map((failure) => `  FAIL ${failure}`),
    ].join('\n'));
    expect(failures).toEqual([]);
    expect(health.status).toBe(200);
    expect(user.status).toBe(200);
    expect(figures.operations).toBe(quire.implemented.size);
  }, 600_000);
});

/** For a failure message: the top-level fields of two JSON answers that differ (`updatedAt`, a revision...). */
function changedFields(before: string, after: string): string {
  const parse = (text: string) => {
    try {
      return JSON.parse(text.slice(text.indexOf(' ') + 1)) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  const [old, now] = [parse(before), parse(after)];
  const names = [...new Set([...Object.keys(old), ...Object.keys(now)])].filter((name) => JSON.stringify(old[name]) !== JSON.stringify(now[name]));
  return names.length ? ` (${names.join(', ')})` : '';
}

interface MutationInput {
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  bodySchema: ReturnType<typeof bodySchemaOf>;
  validBody: unknown;
  cursors: string[];
  bomb: Buffer;
  contract: ReturnType<typeof loadBundledContract>;
}

/** One mutation per parameter and body field per round (its kind drawn at random), plus some of the whole request. */
function mutationsOf(operation: OperationInfo, random: Random, input: MutationInput): Mutation[] {
  const { pathParameters, queryParameters, bodySchema, validBody, cursors, bomb, contract } = input;
  const mutations: Mutation[] = [];
  const validJson = JSON.stringify(validBody ?? {});
  const whole: Mutation[] = [
    { mustRefuse: true, label: 'unknown query parameter', query: { zzUnknown: '1' } },
    { mustRefuse: true, label: 'header over the limit', headers: { 'x-gate-padding': 'h'.repeat(20_000) } },
    { mustRefuse: true, label: 'token of nobody', headers: { authorization: 'Bearer not-a-token-of-anyone' } },
  ];
  if (operation.method !== 'get') {
    whole.push(
      { mustRefuse: true, label: 'body not JSON', rawBody: '{"title":' },
      { mustRefuse: true, label: 'JSON null', rawBody: 'null' },
      { label: 'JSON array', rawBody: '[]' },
      { mustRefuse: true, label: 'JSON string', rawBody: '"text"' },
      { label: 'duplicate keys', rawBody: validJson.replace(/^\{/, '{"zz":1,"zz":2,').replace(',}', '}') },
      { label: 'byte order mark', rawBody: `\ufeff${validJson}` },
      { mustRefuse: true, label: 'text/plain', rawBody: validJson, headers: { 'content-type': 'text/plain' } },
      { mustRefuse: true, label: 'json-patch content type', rawBody: validJson, headers: { 'content-type': 'application/json-patch+json' } },
      { mustRefuse: true, label: 'latin-1 charset', rawBody: validJson, headers: { 'content-type': 'application/json; charset=iso-8859-1' } },
      { mustRefuse: true, label: 'gzip that is not gzip', rawBody: validJson, headers: { 'content-encoding': 'gzip' } },
      { mustRefuse: true, label: 'deflate that is not deflate', rawBody: validJson, headers: { 'content-encoding': 'deflate' } },
      { mustRefuse: true, label: 'br that is not br', rawBody: validJson, headers: { 'content-encoding': 'br' } },
      { mustRefuse: true, label: 'unknown content encoding', rawBody: validJson, headers: { 'content-encoding': 'compress' } },
      { mustRefuse: true, label: 'gzip bomb', rawBody: bomb, headers: { 'content-encoding': 'gzip' } },
      { mustRefuse: true, label: 'over the body limit', rawBody: JSON.stringify({ title: 'o'.repeat(1_100_000) }) },
      // 100,000 levels: refused by the schema of an operation with a body; one without ignores any body.
      { mustRefuse: bodySchema !== undefined, label: 'deep JSON', rawBody: deepJson(100_000) },
    );
    if (operation.requestBodyRequired) whole.push({ mustRefuse: true, label: 'no body', noBody: true });
    if (!bodySchema) whole.push({ label: 'body where none is expected', rawBody: '{"unexpected":true}' });
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const parameter of pathParameters) {
      const bad = random.pick(BAD_PATH_VALUES);
      mutations.push({ label: `path.${parameter.name}: ${bad.kind}`, path: { [parameter.name]: bad.value } });
    }
    for (const parameter of queryParameters) {
      const candidates = badQueryValues(parameter.schema);
      if (parameter.name === 'page') {
        candidates.push({ kind: 'forged cursor', value: Buffer.from('{"after":"zz"}').toString('base64url') });
        for (const cursor of cursors) candidates.push({ kind: 'cursor of another list', value: cursor });
      }
      const bad = random.pick(candidates);
      mutations.push({ label: `query.${parameter.name}: ${bad.kind}`, query: { [parameter.name]: bad.value } });
    }
    if (bodySchema) {
      for (const field of bodyFields(contract, bodySchema)) {
        const candidates: Array<{ kind: string; value: unknown }> = badValues(field.schema).map((bad) => (bad.kind === 'deep nesting' ? { kind: bad.kind, value: DEEP } : bad));
        const bad = random.pick(candidates);
        mutations.push({ label: `body.${field.path.join('.')}: ${bad.kind}`, body: setAt(validBody, field.path, bad.value) });
      }
      for (const name of (bodySchema.required as string[] | undefined) ?? []) {
        const body = structuredClone(validBody) as Record<string, unknown>;
        delete body[name];
        mutations.push({ label: `body.${name}: missing`, body });
      }
    }
    for (let i = 0; i < WHOLE_PER_ROUND; i += 1) mutations.push(random.pick(whole));
  }
  return mutations;
}
