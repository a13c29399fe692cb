import { lazyModule } from '../lazy-module.js';
import { markdownLimitBreach } from './markdown/limits.js';

/** The YAML parser, loaded when a YAML specification is first read. */
const yaml = lazyModule<typeof import('yaml')>('yaml');

/*
 * The pages of the `openapi-reference` template: an OpenAPI 3.x (or Swagger 2.0) document read from JSON or
 * YAML, turned into one markdown page per tag listing its operations. Pure functions over the parsed
 * document; what the document refers to with local `$ref`s (`#/components/...`) is followed, nothing else
 * (no network, no other file).
 */

export class OpenApiDocumentError extends Error {
  override readonly name = 'OpenApiDocumentError';
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface ReferenceOperation {
  method: string;
  path: string;
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated: boolean;
  parameters: ReferenceParameter[];
  requestBody?: { required: boolean; description?: string; contentTypes: string[]; type?: string };
  responses: Array<{ status: string; description: string }>;
}

export interface ReferenceParameter {
  name: string;
  in: string;
  type: string;
  required: boolean;
  description?: string;
}

export interface ReferenceTag {
  name: string;
  description?: string;
  operations: ReferenceOperation[];
}

export interface ApiReference {
  title: string;
  version?: string;
  description?: string;
  tags: ReferenceTag[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** The tag of operations that have none, as OpenAPI tools name it. */
export const UNTAGGED = 'default';
const MAX_REF_DEPTH = 20;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Parses JSON or YAML text (YAML is a superset of JSON) into an OpenAPI document, or says why it is not one. */
export function parseOpenApiDocument(source: string): JsonObject {
  let value: unknown;
  try {
    // Aliases are capped (the default of 100) so that a small file cannot expand into gigabytes.
    value = yaml().parse(source, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    throw new OpenApiDocumentError(`it is not valid JSON or YAML (${error instanceof Error ? error.message.split('\n')[0] : 'parse error'})`);
  }
  if (!isObject(value)) throw new OpenApiDocumentError('it is not a JSON or YAML object');
  const version = text(value.openapi) ?? text(value.swagger);
  if (!version) throw new OpenApiDocumentError('it has no `openapi` (or `swagger`) version field');
  if (!/^(2\.|3\.)/.test(version)) throw new OpenApiDocumentError(`OpenAPI version ${version} is not supported (2.x and 3.x are)`);
  if (!isObject(value.paths)) throw new OpenApiDocumentError('it has no `paths` object');
  return value;
}

/** Follows a local `$ref` (`#/a/b`), repeatedly; an unresolvable or foreign reference is left as it is. */
function resolve(document: JsonObject, value: Json | undefined): Json | undefined {
  let current = value;
  for (let depth = 0; depth < MAX_REF_DEPTH && isObject(current) && typeof current.$ref === 'string'; depth++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) return current;
    let target: Json | undefined = document;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) ? target[key] : Array.isArray(target) ? target[Number(key)] : undefined;
      if (target === undefined) return current;
    }
    current = target;
  }
  return current;
}

/** A short description of a schema's type: `string`, `integer (int64)`, `array of Pet`, `Pet`. */
function schemaType(document: JsonObject, schema: Json | undefined, depth = 0): string | undefined {
  if (!isObject(schema) || depth > 3) return undefined;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop();
    if (name) return name;
  }
  const resolved = resolve(document, schema);
  if (!isObject(resolved)) return undefined;
  const type = Array.isArray(resolved.type) ? resolved.type.filter((item) => item !== 'null').join(' or ') : text(resolved.type);
  if (type === 'array') {
    const items = schemaType(document, resolved.items, depth + 1);
    return items ? `array of ${items}` : 'array';
  }
  if (type) return typeof resolved.format === 'string' ? `${type} (${resolved.format})` : type;
  for (const combinator of ['oneOf', 'anyOf', 'allOf'] as const) {
    const parts = resolved[combinator];
    if (Array.isArray(parts)) {
      const names = parts.map((part) => schemaType(document, part, depth + 1)).filter((name): name is string => name !== undefined);
      if (names.length > 0) return names.join(combinator === 'allOf' ? ' and ' : ' or ');
    }
  }
  return isObject(resolved.properties) ? 'object' : undefined;
}

function parameterOf(document: JsonObject, raw: Json): ReferenceParameter | undefined {
  const parameter = resolve(document, raw);
  if (!isObject(parameter)) return undefined;
  const name = text(parameter.name);
  const location = text(parameter.in);
  if (!name || !location) return undefined;
  // Swagger 2.0 keeps the type on the parameter itself, OpenAPI 3 in its schema.
  const type = schemaType(document, parameter.schema) ?? (text(parameter.type) ? schemaType(document, parameter as Json) : undefined) ?? '';
  const description = text(parameter.description);
  return { name, in: location, type, required: parameter.required === true || location === 'path', ...(description ? { description } : {}) };
}

function operationOf(document: JsonObject, method: string, path: string, raw: JsonObject, shared: readonly Json[]): ReferenceOperation {
  const parameters = new Map<string, ReferenceParameter>();
  let bodyParameter: ReferenceParameter | undefined;
  const ownParameters = Array.isArray(raw.parameters) ? raw.parameters : [];
  // Parameters of the operation override those of its path with the same name and location.
  for (const item of [...shared, ...ownParameters]) {
    const parameter = parameterOf(document, item);
    if (!parameter) continue;
    if (parameter.in === 'body') {
      const resolved = resolve(document, item);
      bodyParameter = { ...parameter, type: (isObject(resolved) ? schemaType(document, resolved.schema) : undefined) ?? parameter.type };
      continue;
    }
    parameters.set(`${parameter.in}\n${parameter.name}`, parameter);
  }

  let requestBody: ReferenceOperation['requestBody'];
  const body = resolve(document, raw.requestBody);
  if (isObject(body)) {
    const content = isObject(body.content) ? body.content : {};
    const contentTypes = Object.keys(content);
    const first = contentTypes[0] === undefined ? undefined : content[contentTypes[0]];
    const type = isObject(first) ? schemaType(document, first.schema) : undefined;
    const description = text(body.description);
    requestBody = { required: body.required === true, contentTypes, ...(description ? { description } : {}), ...(type ? { type } : {}) };
  } else if (bodyParameter) {
    const consumes = Array.isArray(raw.consumes) ? raw.consumes : Array.isArray(document.consumes) ? document.consumes : [];
    requestBody = {
      required: bodyParameter.required,
      contentTypes: consumes.filter((item): item is string => typeof item === 'string'),
      ...(bodyParameter.description ? { description: bodyParameter.description } : {}),
      ...(bodyParameter.type ? { type: bodyParameter.type } : {}),
    };
  }

  const responses: ReferenceOperation['responses'] = [];
  if (isObject(raw.responses)) {
    for (const [status, value] of Object.entries(raw.responses)) {
      const response = resolve(document, value);
      responses.push({ status, description: isObject(response) ? (text(response.description) ?? '') : '' });
    }
  }
  const summary = text(raw.summary);
  const description = text(raw.description);
  const operationId = text(raw.operationId);
  return {
    method: method.toUpperCase(),
    path,
    ...(summary ? { summary } : {}),
    ...(description ? { description } : {}),
    ...(operationId ? { operationId } : {}),
    deprecated: raw.deprecated === true,
    parameters: [...parameters.values()],
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/**
 * The operations of the document grouped by tag: the tags the document lists first, in its order, then
 * the others in the order their first operation appears; operations without a tag under `default`. An
 * operation with several tags appears under each.
 */
export function buildApiReference(document: JsonObject): ApiReference {
  const tags = new Map<string, ReferenceTag>();
  if (Array.isArray(document.tags)) {
    for (const entry of document.tags) {
      const name = isObject(entry) ? text(entry.name) : undefined;
      if (!name || tags.has(name)) continue;
      const description = isObject(entry) ? text(entry.description) : undefined;
      tags.set(name, { name, ...(description ? { description } : {}), operations: [] });
    }
  }
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolve(document, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const raw = item[method];
      if (!isObject(raw)) continue;
      const operation = operationOf(document, method, path, raw, shared);
      const names = Array.isArray(raw.tags) ? raw.tags.filter((tag): tag is string => typeof tag === 'string' && tag.trim() !== '') : [];
      for (const name of names.length > 0 ? [...new Set(names)] : [UNTAGGED]) {
        let tag = tags.get(name);
        if (!tag) {
          tag = { name, operations: [] };
          tags.set(name, tag);
        }
        tag.operations.push(operation);
      }
    }
  }
  const info = isObject(document.info) ? document.info : {};
  const version = text(info.version);
  const description = text(info.description);
  return {
    title: text(info.title) ?? 'API',
    ...(version ? { version } : {}),
    ...(description ? { description } : {}),
    // A tag the document declares but no operation uses would be an empty page.
    tags: [...tags.values()].filter((tag) => tag.operations.length > 0),
  };
}

/** Text that stays inside one table cell: no line breaks, no unescaped pipes. */
function cell(value: string | undefined): string {
  return (value ?? '').replace(/\r?\n+/g, ' ').replace(/\|/g, '\\|').trim();
}

/** The text of an inline code span, whatever backticks the value holds. */
function code(value: string): string {
  const longest = Math.max(0, ...[...value.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${value} ${fence}` : `${fence}${value}${fence}`;
}

function operationMarkdown(operation: ReferenceOperation): string {
  const lines: string[] = [];
  lines.push(`## ${cell(operation.summary ?? `${operation.method} ${operation.path}`)}`, '');
  lines.push(code(`${operation.method} ${operation.path}`), '');
  if (operation.deprecated) lines.push('**Deprecated.**', '');
  if (operation.description) lines.push(operation.description.trim(), '');
  if (operation.operationId) lines.push(`Operation id: ${code(operation.operationId)}`, '');
  if (operation.parameters.length > 0) {
    lines.push('### Parameters', '', '| Name | In | Type | Required | Description |', '| --- | --- | --- | --- | --- |');
    for (const parameter of operation.parameters) {
      lines.push(`| ${code(parameter.name)} | ${cell(parameter.in)} | ${cell(parameter.type)} | ${parameter.required ? 'Yes' : 'No'} | ${cell(parameter.description)} |`);
    }
    lines.push('');
  }
  if (operation.requestBody) {
    const body = operation.requestBody;
    lines.push('### Request body', '');
    const facts = [body.required ? 'Required.' : 'Optional.'];
    if (body.type) facts.push(`Type: ${cell(body.type)}.`);
    if (body.contentTypes.length > 0) facts.push(`Content types: ${body.contentTypes.map(code).join(', ')}.`);
    lines.push(facts.join(' '), '');
    if (body.description) lines.push(body.description.trim(), '');
  }
  if (operation.responses.length > 0) {
    lines.push('### Responses', '', '| Status | Description |', '| --- | --- |');
    for (const response of operation.responses) lines.push(`| ${cell(response.status)} | ${cell(response.description)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

/** The markdown of a tag's page: its description, then each operation under its own heading. */
export function tagMarkdown(tag: ReferenceTag): string {
  const parts = [tag.description?.trim(), ...tag.operations.map(operationMarkdown)].filter((part): part is string => Boolean(part));
  return `${parts.join('\n\n').trimEnd()}\n`;
}

/** The markdown of the reference's own page: what the document says about the API, and its tags. */
export function referenceIntroMarkdown(reference: ApiReference, fileName: string): string {
  const lines = [`Reference of ${reference.title}${reference.version ? ` (version ${reference.version})` : ''}, generated from ${code(fileName)}.`, ''];
  if (reference.description) lines.push(reference.description.trim(), '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The markdown of the `openapi-reference` template's pages, or why there is none. */
export type ReferencePagesResult =
  | { intro: string; tags: Array<{ name: string; markdown: string }> }
  /** The text is not an OpenAPI document (OpenApiDocumentError's message). */
  | { invalid: string }
  /** A page's markdown would pass a content limit (its message names the limit). */
  | { refused: string };

/**
 * Parses an OpenAPI document's text and makes the reference's pages, checked against the limits of length
 * and nesting (descriptions are the document author's markdown, as deep or large as they like). Those are
 * checked on the text in one pass: parsing megabytes of generated markdown takes minutes here, and a page
 * whose inline formatting alone is too deep still reads (as markdown; a document read names the limit).
 * CPU work only, with plain results, so that it can run in the markdown worker thread.
 */
export function referencePages(text: string, fileName: string): ReferencePagesResult {
  let reference: ApiReference;
  try {
    reference = buildApiReference(parseOpenApiDocument(text));
  } catch (error) {
    if (error instanceof OpenApiDocumentError) return { invalid: error.message };
    throw error;
  }
  const intro = referenceIntroMarkdown(reference, fileName);
  const tags = reference.tags.map((tag) => ({ name: tag.name, markdown: tagMarkdown(tag) }));
  const breach = markdownLimitBreach(intro, 'the markdown of the reference page')
    ?? tags.map((tag) => markdownLimitBreach(tag.markdown, `the markdown of the page of tag "${tag.name}"`)).find((message) => message !== undefined);
  return breach === undefined ? { intro, tags } : { refused: breach };
}
