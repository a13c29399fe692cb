import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { basePath, listOperations, loadBundledContract, routeOptions, type OperationInfo } from '../../src/http/openapi/contract.js';
import { PathRouter } from '../../src/http/router.js';

/**
 * The wire-compatibility gate: every JSON answer a test server gives to the generated client is validated,
 * for the operations the public API also has (same method and path template), against the public API's own
 * description, `spec/openapi.json` of the npm package `@gitbook/api` (a dev dependency used as a test oracle:
 * nothing of it is copied into Quire's contract). Each test file records what it saw; a setup file
 * (`wire-setup.ts`) fails the file on a violation the allow-list does not excuse and leaves its figures in a
 * folder that the global teardown (`global-setup.ts`) adds up into the report.
 */

const requireHere = createRequire(import.meta.url);
export const PUBLIC_SPEC_FILE = requireHere.resolve('@gitbook/api/spec/openapi.json');
export const ALLOW_LIST_FILE = fileURLToPath(new URL('./wire-allow-list.json', import.meta.url));
export const REPORT_FILE = fileURLToPath(new URL('../reports/wire-compatibility.md', import.meta.url));

type Json = Record<string, unknown>;

/** One violation: where in the answer, and what the public description says about it. */
export interface Violation {
  instancePath: string;
  message: string;
}

/** What one test file saw of one public operation. */
export interface OperationFigures {
  /** The public operationId, e.g. `getOrganizationById`. */
  operationId: string;
  /** `GET /orgs/{organizationId}`, as the public description writes it. */
  route: string;
  answers: number;
  /** Answers with at least one violation the allow-list does not excuse. */
  failing: number;
  /** Answers whose only violations the allow-list excuses. */
  allowed: number;
  /** Answers with a status the public description does not declare for the operation (nothing to check). */
  undeclaredStatus: number;
  /** Answers nested deeper than `MAX_VALIDATED_DEPTH`, counted but not validated (see there). */
  tooDeep: number;
  /** Distinct violations (instance path with indexes as `*`, and message), with how often each was seen. */
  violations: Record<string, { count: number; allowedBy?: string; example: string }>;
}

export interface AllowEntry {
  /** A public operationId, or `*`. */
  operationId: string;
  /** A regular expression over the violation's instance path (indexes written `*`). */
  instancePath: string;
  /** A regular expression over the violation's message; any message when absent. */
  message?: string;
  reason: string;
}

interface PublicOperation {
  operationId: string;
  route: string;
  responses: Record<string, Json>;
}

let state: { ajv: Ajv; publicSpec: Json; quireRoutes: PathRouter<OperationInfo>; quireBase: string; byTemplate: Map<string, PublicOperation> } | undefined;
const validators = new Map<string, ValidateFunction | null>();
const figures = new Map<string, OperationFigures>();
let allowList: AllowEntry[] | undefined;

/** A method and a path template with its parameters unnamed: the address a client sees (`GET /spaces/{}`). */
export const templateKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

function load() {
  if (state) return state;
  const publicSpec = JSON.parse(readFileSync(PUBLIC_SPEC_FILE, 'utf8')) as Json;
  // Format-aware, but lenient about the OpenAPI keywords JSON Schema lacks (`example`, `x-...`). `nullable`
  // is one Ajv knows. `discriminator` is left out: Ajv's support wants the tag property in each `oneOf`
  // branch itself, which the public schemas (branches made with `allOf`) do not have, and the `oneOf` it
  // annotates says the same on its own.
  const ajv = new Ajv({ strict: false, allErrors: true, discriminator: false, validateFormats: true });
  addFormats.default(ajv);
  // OpenAPI's numeric formats and the public API's own ones (`emoji`, `icon`) say nothing a type does not.
  for (const format of ['int32', 'int64', 'float', 'double', 'emoji', 'icon', 'password']) ajv.addFormat(format, true);
  ajv.addSchema(taggedUnions(nullableToJsonSchema(publicSpec) as Json), 'public');

  const byTemplate = new Map<string, PublicOperation>();
  for (const [path, item] of Object.entries(publicSpec.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      byTemplate.set(templateKey(method, path), {
        operationId: String(operation.operationId),
        route: `${method.toUpperCase()} ${path}`,
        responses: operation.responses as Record<string, Json>,
      });
    }
  }
  const quire = loadBundledContract();
  const quireRoutes = new PathRouter<OperationInfo>();
  const quireBase = basePath(quire);
  for (const operation of listOperations(quire)) quireRoutes.add(operation.method.toUpperCase(), quireBase + operation.contractPath, operation, routeOptions(operation));
  state = { ajv, publicSpec, quireRoutes, quireBase, byTemplate };
  return state;
}

function loadAllowList(): AllowEntry[] {
  if (allowList) return allowList;
  const entries = JSON.parse(readFileSync(ALLOW_LIST_FILE, 'utf8')) as { entries: AllowEntry[] };
  for (const entry of entries.entries) {
    if (!entry.reason?.trim()) throw new Error(`${ALLOW_LIST_FILE}: every entry needs a reason (${JSON.stringify(entry)})`);
    new RegExp(entry.instancePath);
  }
  allowList = entries.entries;
  return allowList;
}

/**
 * OpenAPI 3.0's `nullable: true` beside a `$ref` or `allOf` (no `type`), which Ajv refuses, written as the
 * JSON Schema it means: the schema or null. The document itself is not changed.
 */
function nullableToJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nullableToJsonSchema);
  if (!value || typeof value !== 'object') return value;
  const copy: Json = {};
  for (const [key, inner] of Object.entries(value)) copy[key] = nullableToJsonSchema(inner);
  if ('nullable' in copy && !('type' in copy)) {
    const { nullable, ...rest } = copy;
    return nullable === true ? { anyOf: [rest, { type: 'null' }] } : rest;
  }
  return copy;
}

/**
 * A `oneOf` whose branches are told apart by a tag (`type`, `kind` or `object`, with distinct values; the
 * `discriminator` names it when there is one), written as the equivalent "the tag is one of these, and the
 * branch of its value holds": a value is then checked against its own branch only. Checked as a plain
 * `oneOf`, a page tree costs a number of branch checks growing exponentially with its depth (every branch
 * walks the children), which made a links suite's answers, each embedding a revision, take minutes; and the
 * errors of the branches not meant buried the real ones.
 */
function taggedUnions(document: Json): Json {
  const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
  const resolve = (schema: Json): Json => (typeof schema.$ref === 'string' ? schemas[schema.$ref.replace('#/components/schemas/', '')] ?? {} : schema);
  const tagValues = (schema: Json, tag: string, depth = 0): string[] | undefined => {
    if (depth > 4) return undefined;
    const resolved = resolve(schema);
    const property = (resolved.properties as Record<string, Json> | undefined)?.[tag];
    if (property && Array.isArray(property.enum)) return property.enum as string[];
    if (property && typeof property.const === 'string') return [property.const];
    for (const member of (resolved.allOf as Json[] | undefined) ?? []) {
      const found = tagValues(member, tag, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  const rewrite = (node: Json): Json => {
    const branches = node.oneOf as Json[];
    const discriminator = (node.discriminator as { propertyName?: string } | undefined)?.propertyName;
    for (const tag of discriminator ? [discriminator] : ['type', 'kind', 'object']) {
      const values = branches.map((branch) => tagValues(branch, tag));
      const all = values.flatMap((value) => value ?? []);
      if (values.some((value) => !value) || new Set(all).size !== all.length) continue;
      const { oneOf: _oneOf, discriminator: _discriminator, ...rest } = node;
      return {
        ...rest,
        required: [...new Set([...((rest.required as string[] | undefined) ?? []), tag])],
        allOf: [
          ...((rest.allOf as Json[] | undefined) ?? []),
          { properties: { [tag]: { enum: all } } },
          ...branches.map((branch, index) => ({ if: { properties: { [tag]: { enum: values[index] } } }, then: branch })),
        ],
      };
    }
    // Branches that require nothing and allow any further property cannot exclude one another: whatever
    // matches one matches the others too, so no value can match exactly one and the `oneOf` means "any of
    // these" (the public description's page_edited `attributes`, the only such union in it).
    const open = branches.map(resolve).every((branch) => branch.type === 'object' && !(branch.required as unknown[] | undefined)?.length && branch.additionalProperties !== false);
    if (open) {
      const { oneOf: _oneOf, discriminator: _discriminator, ...rest } = node;
      return { ...rest, anyOf: branches };
    }
    return node;
  };
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!value || typeof value !== 'object') return value;
    const copy: Json = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = walk(inner);
    return Array.isArray(copy.oneOf) ? rewrite(copy) : copy;
  };
  return walk(document) as Json;
}

/** `#/components/...` references, made to point into the public document Ajv holds as `public`. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (!value || typeof value !== 'object') return value;
  const copy: Json = {};
  for (const [key, inner] of Object.entries(value)) copy[key] = key === '$ref' && typeof inner === 'string' && inner.startsWith('#') ? `public${inner}` : rebase(inner);
  return copy;
}

function responseSchema(operation: PublicOperation, status: number): unknown {
  const { publicSpec } = load();
  let response = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default;
  if (!response) return undefined;
  if (typeof response.$ref === 'string') {
    const name = response.$ref.replace('#/components/responses/', '');
    response = (publicSpec.components as { responses: Record<string, Json> }).responses[name]!;
  }
  const content = response.content as Record<string, { schema?: unknown }> | undefined;
  // No JSON body declared (e.g. 204): there is nothing to hold the answer to.
  return content?.['application/json']?.schema ?? null;
}

function validatorFor(operation: PublicOperation, status: number): ValidateFunction | null | undefined {
  const key = `${operation.route} ${status}`;
  if (validators.has(key)) return validators.get(key);
  const schema = responseSchema(operation, status);
  if (schema === undefined) return undefined;
  const validate = schema === null ? null : load().ajv.compile(rebase(schema) as Json);
  validators.set(key, validate);
  return validate;
}

const schemaValidators = new Map<string, ValidateFunction>();

/**
 * The violations of a value against one schema of the public description (`JSONDocument`...), summarized as
 * the gate reports them: for tests of a shape that many operations answer (the document format).
 */
export function publicSchemaViolations(schemaName: string, value: unknown): Violation[] {
  let validate = schemaValidators.get(schemaName);
  if (!validate) {
    validate = load().ajv.compile({ $ref: `public#/components/schemas/${schemaName}` });
    schemaValidators.set(schemaName, validate);
  }
  return validate(value) ? [] : summarize(validate.errors ?? []);
}

/** Whether the allow-list excuses a violation of an answer of `operationId` (for tests of shapes, `*`). */
export function allowListExcuse(operationId: string, violation: Violation): string | undefined {
  return excusedBy(operationId, violation)?.reason;
}

/** The public operation a request of Quire's corresponds to, if the public API has it. */
export function publicOperationOf(method: string, pathname: string): PublicOperation | undefined {
  const { quireRoutes, quireBase, byTemplate } = load();
  const found = quireRoutes.lookup(method.toUpperCase(), pathname);
  if (found.kind !== 'found') return undefined;
  void quireBase;
  return byTemplate.get(templateKey(method, found.match.route.contractPath));
}

/**
 * Keeps the errors that say what is wrong. For a value matching no branch of a `oneOf`, Ajv reports every
 * branch's complaints and then the `oneOf` itself. A branch whose tag (`type`, `kind`, `object`) differs
 * is not the one meant, so its tag mismatch is dropped; and where deeper errors exist, the ones above them
 * are only their echo (the parent fails because a child does), so the deepest errors are kept. A fault at a
 * parent beside a deeper one shows once the deeper one is fixed.
 */
function summarize(errors: NonNullable<ValidateFunction['errors']>): Violation[] {
  const tagMismatch = (error: (typeof errors)[number]) => (error.keyword === 'enum' || error.keyword === 'const') && /\/(type|kind|object)$/.test(error.instancePath);
  // `if`/`then` errors (see taggedUnions) only say that the branch's own errors, also listed, exist.
  const untagged = errors.filter((error) => !tagMismatch(error) && error.keyword !== 'if');
  const candidates = untagged.length > 0 ? untagged : errors;
  const deepest = candidates.filter((error) => !candidates.some((other) => other.instancePath.startsWith(`${error.instancePath}/`)));
  const seen = new Map<string, Violation>();
  for (const error of deepest) {
    const instancePath = error.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '/';
    const detail = error.keyword === 'additionalProperties'
      ? `must NOT have additional property ${String((error.params as { additionalProperty: string }).additionalProperty)}`
      : error.keyword === 'required'
        ? `must have required property ${String((error.params as { missingProperty: string }).missingProperty)}`
        : error.message ?? error.keyword;
    const violation = { instancePath, message: `${detail} (${error.schemaPath.replace(/^public#/, '#')})` };
    seen.set(`${instancePath} ${violation.message}`, violation);
  }
  return [...seen.values()];
}

function excusedBy(operationId: string, violation: Violation): AllowEntry | undefined {
  return loadAllowList().find((entry) => (entry.operationId === '*' || entry.operationId === operationId)
    && new RegExp(entry.instancePath).test(violation.instancePath)
    && (entry.message === undefined || new RegExp(entry.message).test(violation.message)));
}

/**
 * Answers wait here until the file's tests are over: compiling the validators of the public description
 * takes seconds, and doing it during a request would stall the test server that shares this thread (its
 * idle keep-alive sockets then closed under the next request: ECONNRESET).
 */
const pending: Array<{ method: string; url: string; status: number; body: unknown }> = [];

/** Keeps one answer of a test server for validation when the file's tests end (`takeFigures`). */
export function recordAnswer(method: string, url: string, status: number, body: unknown): void {
  pending.push({ method, url, status, body });
}

/**
 * The public description's document nodes are unions without a tag at several levels (inline nodes, marks,
 * fragments), so Ajv tries every branch at every level: validating content nested as deep as the content
 * limits allow (32 nested lists or quotes, about 130 levels of JSON) takes time exponential in its depth,
 * hours for one answer. Answers deeper than this are counted in the figures (`tooDeep`) and not validated;
 * ordinary pages, trees and lists stay well below it.
 */
const MAX_VALIDATED_DEPTH = 48;

/** Whether `value` nests objects and arrays deeper than `limit` (iterative: a deep answer must not overflow the stack). */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Validates one answer and counts it (nothing for operations the public API lacks). */
function validateAnswer(method: string, url: string, status: number, body: unknown): void {
  const pathname = new URL(url).pathname;
  const operation = publicOperationOf(method, pathname);
  if (!operation) return;
  let entry = figures.get(operation.route);
  if (!entry) {
    entry = { operationId: operation.operationId, route: operation.route, answers: 0, failing: 0, allowed: 0, undeclaredStatus: 0, tooDeep: 0, violations: {} };
    figures.set(operation.route, entry);
  }
  entry.answers++;
  if (deeperThan(body, MAX_VALIDATED_DEPTH)) {
    entry.tooDeep++;
    return;
  }
  const validate = validatorFor(operation, status);
  if (validate === undefined) {
    entry.undeclaredStatus++;
    return;
  }
  if (validate === null || validate(body)) return;
  let unexcused = false;
  for (const violation of summarize(validate.errors ?? [])) {
    const key = `${violation.instancePath}: ${violation.message}`;
    const allowedBy = excusedBy(operation.operationId, violation);
    if (!allowedBy) unexcused = true;
    const seen = entry.violations[key] ?? { count: 0, ...(allowedBy ? { allowedBy: allowedBy.reason } : {}), example: `${method} ${pathname} -> ${status}` };
    seen.count++;
    entry.violations[key] = seen;
  }
  if (unexcused) entry.failing++;
  else entry.allowed++;
}

/** Validates what this process recorded since the last call, and answers and forgets its figures (each test file takes its own). */
export function takeFigures(): OperationFigures[] {
  for (const answer of pending.splice(0)) validateAnswer(answer.method, answer.url, answer.status, answer.body);
  const taken = [...figures.values()];
  figures.clear();
  return taken;
}

/** Violations of `taken` that the allow-list does not excuse, one line each. */
export function unexcusedViolations(taken: OperationFigures[]): string[] {
  const lines: string[] = [];
  for (const entry of taken) {
    for (const [key, seen] of Object.entries(entry.violations)) {
      if (!seen.allowedBy) lines.push(`${entry.operationId} (${entry.route}) ${key} [${seen.count}x, e.g. ${seen.example}]`);
    }
  }
  return lines;
}

export function writeFigures(dir: string, name: string, taken: OperationFigures[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(taken));
}

/** Adds up the figures of every test file into one entry per operation. */
export function mergeFigures(all: OperationFigures[][]): OperationFigures[] {
  const merged = new Map<string, OperationFigures>();
  for (const taken of all) {
    for (const entry of taken) {
      const into = merged.get(entry.route) ?? { ...entry, answers: 0, failing: 0, allowed: 0, undeclaredStatus: 0, tooDeep: 0, violations: {} };
      into.answers += entry.answers;
      into.failing += entry.failing;
      into.allowed += entry.allowed;
      into.undeclaredStatus += entry.undeclaredStatus;
      into.tooDeep += entry.tooDeep;
      for (const [key, seen] of Object.entries(entry.violations)) {
        const existing = into.violations[key];
        into.violations[key] = existing ? { ...existing, count: existing.count + seen.count } : { ...seen };
      }
      merged.set(entry.route, into);
    }
  }
  return [...merged.values()].sort((a, b) => a.route.localeCompare(b.route));
}

/** The report, as Markdown: totals, then one row per operation, then each distinct violation. */
export function renderReport(merged: OperationFigures[]): { text: string; summary: string } {
  const total = (pick: (entry: OperationFigures) => number) => merged.reduce((sum, entry) => sum + pick(entry), 0);
  const violating = merged.filter((entry) => entry.failing + entry.allowed > 0).length;
  const summary = `wire-compatibility gate: ${merged.length} public operations covered, ${total((e) => e.answers)} answers validated against @gitbook/api's description, ` +
    `${total((e) => e.failing + e.allowed)} with violations (${total((e) => e.failing)} not allowed, ${total((e) => e.allowed)} allow-listed) from ${violating} operations, ` +
    `${total((e) => e.undeclaredStatus)} with a status the public description does not declare, ${total((e) => e.tooDeep)} nested too deep to validate`;
  const lines = [
    '# Wire-compatibility report', '', summary, '',
    '| operation | route | answers | violating (not allowed) | violating (allow-listed) | undeclared status | too deep |', '|---|---|---|---|---|---|---|',
    ...merged.map((entry) => `| ${entry.operationId} | ${entry.route} | ${entry.answers} | ${entry.failing} | ${entry.allowed} | ${entry.undeclaredStatus} | ${entry.tooDeep} |`),
    '', '## Violations', '',
  ];
  for (const entry of merged) {
    for (const [key, seen] of Object.entries(entry.violations)) {
      lines.push(`- ${seen.allowedBy ? 'allowed' : '**NOT ALLOWED**'} ${entry.operationId}: \`${key}\` (${seen.count}x, e.g. ${seen.example})${seen.allowedBy ? ` (${seen.allowedBy})` : ''}`);
    }
  }
  return { text: `${lines.join('\n')}\n`, summary };
}
