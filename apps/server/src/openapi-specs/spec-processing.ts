import { BaseResolver, createConfig, getLineColLocation, lintDocument, parseYaml, ResolveError, Source, type NormalizedProblem } from '@redocly/openapi-core';
import { LineCounter, parseDocument } from 'yaml';
import { guardedFetch, OutboundUrlError, redactUrl } from '../net/url-guard.js';
import { rootName, type SpecErrorCode, type SpecProblem, type SpecProcessInput, type SpecProcessResult } from './spec-types.js';

/*
 * Parsing and validation of an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1) with @redocly/openapi-core.
 * Runs in a worker thread (spec-pool.ts) because validating a multi-megabyte document takes seconds of CPU.
 * External `$ref`s are followed only to http(s) URLs, each fetched through the URL guard; a reference to a
 * file (`file:`, or a relative path in a document that was sent as text) is refused, so that a document can
 * never make the server read its own disk.
 */

/** At most this many problems are kept: enough to act on, bounded for the database row. */
const MAX_PROBLEMS = 50;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseError(errors: SpecProblem[]): SpecProcessResult {
  return { ok: false, code: 'PARSE_ERROR', errors: errors.slice(0, MAX_PROBLEMS) };
}

/** Line and column of each syntax error, from the `yaml` parser (which reads JSON too): thorough but slow, so only for a text that failed. */
function syntaxErrors(text: string, fallback: string): SpecProcessResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length === 0) return parseError([{ message: `The document cannot be read: ${fallback}`, code: 'syntax' }]);
  return parseError(document.errors.map((error) => {
    const at = lineCounter.linePos(error.pos[0]);
    const first = error.message.split('\n')[0] ?? error.message;
    return { message: `Line ${at.line}, column ${at.col}: ${first}`, code: 'syntax' };
  }));
}

/** Reads JSON or YAML: JSON.parse first for JSON (ten to a hundred times faster on large documents), js-yaml otherwise. */
function readText(text: string): { value: unknown } | SpecProcessResult {
  if (/^\s*[{[]/.test(text)) {
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      // Not strict JSON; YAML (a superset) may still read it.
    }
  }
  try {
    return { value: parseYaml(text) };
  } catch (error) {
    return syntaxErrors(text, error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error));
  }
}

type RootCheck = { checked: true; specVersion: string; value: Record<string, unknown> } | SpecProcessResult;

/** Syntax and shape of the root: JSON or YAML, an object, an OpenAPI version this service reads. */
function checkRoot(text: string): RootCheck {
  const read = readText(text);
  if (!('value' in read)) return read;
  const value = read.value;
  if (!isObject(value)) {
    return parseError([{ message: 'The document is not an OpenAPI document: its top level is not an object (expected a map with an `openapi` or `swagger` field)', code: 'not-openapi' }]);
  }
  const openapi = value.openapi;
  const swagger = value.swagger;
  if (typeof openapi === 'string' && /^3\.[01]\.\d+$/.test(openapi)) return { checked: true, specVersion: openapi, value };
  if (typeof openapi === 'string' || typeof openapi === 'number') {
    return parseError([{ message: `At /openapi: version "${String(openapi)}" is not supported; use 3.0.x or 3.1.x (or Swagger 2.0)`, code: 'unsupported-version' }]);
  }
  if (swagger === '2.0') return { checked: true, specVersion: '2.0', value };
  if (swagger !== undefined) {
    return parseError([{ message: `At /swagger: version "${String(swagger)}" is not supported; Swagger documents must say "2.0"`, code: 'unsupported-version' }]);
  }
  return parseError([{ message: 'The document is not an OpenAPI document: it has neither an `openapi` field (3.0, 3.1) nor a `swagger` field (2.0) at the top level', code: 'not-openapi' }]);
}

/** Marks a reference that has no URL to resolve against, so that loading it is refused rather than read from disk. */
const LOCAL_PREFIX = 'quire-local-file:';

interface FetchFailure {
  code: 'FETCH_TIMEOUT' | 'FETCH_ERROR';
  message: string;
}

/** Resolves external references through the URL guard only, and keeps the text of every file it loaded. */
class GuardedResolver extends BaseResolver {
  readonly loaded = new Map<string, string>();
  readonly failures: FetchFailure[] = [];
  readonly #input: SpecProcessInput;

  constructor(input: SpecProcessInput) {
    super({ http: { headers: [] } } as never);
    this.#input = input;
  }

  override resolveExternalRef(base: string | null, ref: string): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) return ref;
    if (base && /^https?:\/\//i.test(base)) return new URL(ref, base).href;
    return `${LOCAL_PREFIX}${ref}`;
  }

  override async loadExternalRef(absoluteRef: string): Promise<Source> {
    const refuse = (message: string, code: FetchFailure['code'] = 'FETCH_ERROR'): never => {
      this.failures.push({ code, message });
      throw new ResolveError(new Error(message));
    };
    if (absoluteRef.startsWith(LOCAL_PREFIX)) {
      return refuse(`The reference "${absoluteRef.slice(LOCAL_PREFIX.length)}" points to a local file; external references must be http or https URLs (a document sent as text can only use absolute URLs)`);
    }
    let url: URL;
    try {
      url = new URL(absoluteRef);
    } catch {
      return refuse(`The reference "${absoluteRef}" is not a valid URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return refuse(`The reference "${redactUrl(absoluteRef)}" uses the ${url.protocol.replace(/:$/, '')} scheme; external references must be http or https URLs, files are never read`);
    }
    if (this.loaded.size >= this.#input.maxFiles) {
      return refuse(`The document refers to more than ${this.#input.maxFiles} external files`);
    }
    try {
      const response = await guardedFetch(url, { allowLocal: this.#input.allowLocal, timeoutMs: this.#input.fetchTimeoutMs, maxBytes: this.#input.maxBytes });
      if (response.status < 200 || response.status > 299) return refuse(`Fetching the reference ${redactUrl(absoluteRef)} answered HTTP ${response.status}`);
      const body = response.body.toString('utf8');
      this.loaded.set(redactUrl(absoluteRef), body);
      const contentType = response.headers['content-type'];
      // Parsed as JSON/YAML whatever its extension: a referenced file can only be a document.
      return new Source(absoluteRef, body, typeof contentType === 'string' && /json|yaml/.test(contentType) ? contentType : 'application/yaml');
    } catch (error) {
      if (error instanceof ResolveError) throw error;
      if (error instanceof OutboundUrlError) return refuse(`Reference ${redactUrl(absoluteRef)}: ${error.message}`, error.code === 'timeout' ? 'FETCH_TIMEOUT' : 'FETCH_ERROR');
      return refuse(`Reference ${redactUrl(absoluteRef)} could not be fetched: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** "Line 12, column 5 (/paths/~1pets/get): message" when the parser can place it, else the pointer alone. */
function describeProblem(problem: NormalizedProblem): SpecProblem {
  const location = problem.location[0];
  let where = '';
  if (location) {
    const pointer = location.pointer ?? '';
    const file = location.source.absoluteRef;
    const inFile = file.startsWith(LOCAL_PREFIX) || file === 'openapi.json' || file === 'openapi.yaml' ? '' : ` of ${redactUrl(file)}`;
    try {
      const { start } = getLineColLocation(location);
      where = `Line ${start.line}, column ${start.col}${inFile}${pointer ? ` (${pointer.replace(/^#/, '')})` : ''}: `;
    } catch {
      where = pointer ? `At ${pointer.replace(/^#/, '')}${inFile}: ` : '';
    }
  }
  return { message: `${where}${problem.message}`, code: problem.ruleId };
}

let config: ReturnType<typeof createConfig> | undefined;

/** Rules of the standard only: the structure of each object, and references that resolve. Style rules are for linters. Made once per thread. */
function validationConfig(): ReturnType<typeof createConfig> {
  config ??= createConfig({ rules: { struct: 'error', 'no-unresolved-refs': 'error' } } as never);
  return config;
}

/** Parses and validates the document and loads what it refers to. Never throws for a bad document. */
export async function processSpec(input: SpecProcessInput): Promise<SpecProcessResult> {
  const checked = checkRoot(input.text);
  if (!('checked' in checked)) return checked;
  const name = input.sourceUrl ? redactUrl(input.sourceUrl) : rootName(input.text);
  const resolver = new GuardedResolver(input);
  const config = await validationConfig();
  // The document already read, rather than makeDocumentFromString (which would parse the text a second time,
  // with js-yaml even for JSON: seconds for a multi-megabyte document). The source text stays for line numbers.
  const document = { source: new Source(input.sourceUrl ?? name, input.text), parsed: checked.value };
  const problems = await lintDocument({ document: document as never, config: config.styleguide, externalRefResolver: resolver });
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0) {
    const fetchFailure = resolver.failures[0];
    const described = errors.map(describeProblem);
    if (fetchFailure) {
      // A reference that could not be fetched is a fetch problem, however the validator words it.
      return { ok: false, code: fetchFailure.code, errors: described.slice(0, MAX_PROBLEMS) };
    }
    return parseError(described);
  }
  const filesystem: Record<string, unknown> = { [name]: checked.value };
  for (const [file, text] of resolver.loaded) filesystem[file] = parseYaml(text) as unknown;
  return {
    ok: true,
    specVersion: checked.specVersion,
    files: [{ name, text: input.text }, ...[...resolver.loaded].map(([file, text]) => ({ name: file, text }))],
    filesystem: JSON.stringify(filesystem),
    warnings: problems.filter((problem) => problem.severity === 'warn').slice(0, MAX_PROBLEMS).map(describeProblem),
  };
}
