import type { OpenApiDocument, OperationInfo } from '../../src/http/openapi/contract.js';

/*
 * What the gates know of the contract: each operation's parameters and body schema, with `$ref`s resolved,
 * a valid value for a schema, and the mutations of each parameter and body field.
 */

export type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

/** A seeded generator (mulberry32): the same seed gives the same requests, so a failure can be replayed. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

export function resolve(contract: OpenApiDocument, value: unknown, depth = 0): Schema {
  let current = (value ?? {}) as Schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops += 1) {
    const path = (current.$ref as string).replace(/^#\//, '').split('/');
    let target: unknown = contract;
    for (const part of path) target = (target as Record<string, unknown>)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    current = (target ?? {}) as Schema;
  }
  if (depth < 8 && Array.isArray(current.allOf)) {
    const merged: Schema = { ...current, properties: {}, required: [] };
    delete merged.allOf;
    for (const part of current.allOf) {
      const resolved = resolve(contract, part, depth + 1);
      Object.assign(merged, { ...resolved, properties: { ...(merged.properties as Schema), ...(resolved.properties as Schema) }, required: [...(merged.required as string[]), ...((resolved.required as string[]) ?? [])] });
    }
    return merged;
  }
  return current;
}

export function parametersOf(contract: OpenApiDocument, operation: OperationInfo): Parameter[] {
  const item = contract.paths[operation.contractPath] as { parameters?: unknown[] };
  const all = [...(item.parameters ?? []), ...(operation.definition.parameters ?? [])].map((parameter) => resolve(contract, parameter));
  return all.map((parameter) => ({
    name: parameter.name as string,
    in: parameter.in as Parameter['in'],
    required: parameter.required === true,
    schema: resolve(contract, parameter.schema),
  }));
}

export function bodySchemaOf(contract: OpenApiDocument, operation: OperationInfo): Schema | undefined {
  const content = operation.definition.requestBody?.content as Record<string, { schema?: unknown }> | undefined;
  const json = content?.['application/json'];
  return json ? resolve(contract, json.schema) : undefined;
}

function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return (schema.type as string[]).find((type) => type !== 'null');
  if (typeof schema.type === 'string') return schema.type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  if (Array.isArray(schema.enum)) return typeof schema.enum[0];
  return undefined;
}

const FORMAT_VALUES: Record<string, string> = {
  'date-time': '2026-01-02T03:04:05.000Z',
  date: '2026-01-02',
  email: 'gate@example.com',
  uri: 'https://example.com/gate',
  url: 'https://example.com/gate',
  uuid: '00000000-0000-4000-8000-000000000000',
  byte: Buffer.from('gate').toString('base64'),
};

/**
 * A value the schema accepts, best effort: const, default, example, enum, then by type with the required
 * properties only. Whether the whole request is valid is measured, not assumed (the figures count it).
 */
export function validValue(contract: OpenApiDocument, raw: unknown, depth = 0): unknown {
  const schema = resolve(contract, raw);
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (variants?.length) return validValue(contract, variants[0], depth + 1);
  switch (typeOf(schema)) {
    case 'string': {
      if (typeof schema.format === 'string' && FORMAT_VALUES[schema.format]) return FORMAT_VALUES[schema.format];
      const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
      return 'gate'.padEnd(Math.max(min, 4), 'x').slice(0, typeof schema.maxLength === 'number' ? schema.maxLength : undefined);
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
    case 'boolean':
      return true;
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return depth > 6 ? [] : Array.from({ length: min }, () => validValue(contract, schema.items, depth + 1));
    }
    case 'object': {
      const object: Record<string, unknown> = {};
      if (depth > 6) return object;
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      for (const name of (schema.required as string[] | undefined) ?? []) object[name] = validValue(contract, properties[name], depth + 1);
      return object;
    }
    default:
      return 'gate';
  }
}

/** One field of a body: its place (a path of keys) and schema. */
export interface BodyField {
  path: string[];
  schema: Schema;
}

/** Every property of the body schema, nested ones and array items included, to a bounded depth. */
export function bodyFields(contract: OpenApiDocument, schema: Schema, path: string[] = [], depth = 0, out: BodyField[] = []): BodyField[] {
  if (depth > 4) return out;
  const resolved = resolve(contract, schema);
  const variant = ((resolved.oneOf ?? resolved.anyOf) as unknown[] | undefined)?.[0];
  const effective = variant ? resolve(contract, variant) : resolved;
  for (const [name, child] of Object.entries((effective.properties ?? {}) as Record<string, unknown>)) {
    const childSchema = resolve(contract, child);
    out.push({ path: [...path, name], schema: childSchema });
    bodyFields(contract, childSchema, [...path, name], depth + 1, out);
  }
  if (effective.items) {
    const itemSchema = resolve(contract, effective.items);
    out.push({ path: [...path, '0'], schema: itemSchema });
    bodyFields(contract, itemSchema, [...path, '0'], depth + 1, out);
  }
  return out;
}

/** `[[[...]]]` `levels` deep, built without recursion. */
export function deepArray(levels: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < levels; i += 1) value = [value];
  return value;
}

/** Values that break the schema of one field (or that probe its edges): types, limits, patterns, sizes, nesting. */
export function badValues(schema: Schema): Array<{ kind: string; value: unknown }> {
  const type = typeOf(schema);
  const out: Array<{ kind: string; value: unknown }> = [
    { kind: 'null', value: null },
    { kind: 'deep nesting', value: deepArray(5_000) },
    { kind: 'object', value: { nested: { deeper: 'x' } } },
  ];
  if (type !== 'string') out.push({ kind: 'string', value: 'not-of-this-type' }, { kind: 'huge string', value: 'x'.repeat(200_000) });
  if (type !== 'integer' && type !== 'number') out.push({ kind: 'number', value: 12345.678 });
  if (type !== 'boolean') out.push({ kind: 'boolean', value: true });
  if (type !== 'array') out.push({ kind: 'array', value: ['a', 1, null] });
  if (type === 'string') {
    out.push({ kind: 'control characters', value: '\u0000\u0001\ud800' }, { kind: 'blank', value: '   ' }, { kind: 'empty', value: '' });
    out.push({ kind: 'too long', value: 'y'.repeat(typeof schema.maxLength === 'number' ? schema.maxLength + 1 : 100_000) });
    if (Array.isArray(schema.enum)) out.push({ kind: 'not in enum', value: 'notAnAllowedValue' });
    if (typeof schema.pattern === 'string') out.push({ kind: 'breaks pattern', value: '<>"\' %/\\' });
    if (typeof schema.format === 'string') out.push({ kind: `not a ${schema.format}`, value: 'not/a valid:value' });
  }
  if (type === 'integer' || type === 'number') {
    out.push({ kind: 'negative', value: -1 }, { kind: 'huge', value: 1e300 }, { kind: 'fraction', value: 0.5 }, { kind: 'past int64', value: 9007199254740993 });
    if (typeof schema.maximum === 'number') out.push({ kind: 'above maximum', value: schema.maximum + 1 });
    if (typeof schema.minimum === 'number') out.push({ kind: 'below minimum', value: schema.minimum - 1 });
  }
  if (type === 'array') {
    out.push({ kind: 'many items', value: Array.from({ length: typeof schema.maxItems === 'number' ? schema.maxItems + 1 : 5_000 }, () => 'x') });
    out.push({ kind: 'items of a wrong type', value: [[[[]]], { a: 1 }, 7] });
  }
  if (type === 'object') out.push({ kind: 'unknown property', value: { zzUnknown: 1 } }, { kind: 'many properties', value: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, i])) });
  return out;
}

/** Query values (always strings on the wire) that break a parameter's schema or probe its edges. */
export function badQueryValues(schema: Schema): Array<{ kind: string; value: string | string[] }> {
  const type = typeOf(schema);
  const out: Array<{ kind: string; value: string | string[] }> = [
    { kind: 'empty', value: '' },
    { kind: 'huge', value: 'q'.repeat(6_000) },
    { kind: 'repeated', value: ['a', 'b', 'c'] },
    { kind: 'bad percent-encoding', value: '%ZZ%' },
    { kind: 'NUL and unicode', value: '\u0000é😀' },
  ];
  if (type === 'integer' || type === 'number') {
    out.push({ kind: 'not a number', value: 'abc' }, { kind: 'fraction', value: '1.5' }, { kind: 'negative', value: '-1' }, { kind: 'huge', value: '1e309' }, { kind: 'many digits', value: '9'.repeat(40) });
    if (typeof schema.maximum === 'number') out.push({ kind: 'above maximum', value: String(schema.maximum + 1) });
    if (typeof schema.minimum === 'number') out.push({ kind: 'below minimum', value: String(schema.minimum - 1) });
  }
  if (type === 'boolean') out.push({ kind: 'not a boolean', value: 'maybe' });
  if (Array.isArray(schema.enum)) out.push({ kind: 'not in enum', value: 'notAnAllowedValue' });
  return out;
}

/** Path segments that are not an id of anything, or not a sane one. */
export const BAD_PATH_VALUES: Array<{ kind: string; value: string }> = [
  { kind: 'unknown id', value: 'noSuchThing0000000000' },
  { kind: 'very long', value: 'p'.repeat(5_000) },
  { kind: 'NUL', value: '%00' },
  { kind: 'bad percent-encoding', value: '%ZZ' },
  { kind: 'dots', value: '..' },
  { kind: 'encoded slash', value: 'a%2Fb' },
  { kind: 'unicode', value: encodeURIComponent('é😀') },
  { kind: 'quote', value: encodeURIComponent("' OR 1=1 --") },
  { kind: 'number', value: '9'.repeat(30) },
  { kind: 'negative', value: '-1' },
];

/** Sets `value` at `path` in a copy of `body`, creating objects and arrays on the way. */
export function setAt(body: unknown, path: string[], value: unknown): unknown {
  const root = structuredClone(body ?? {}) as Record<string, unknown>;
  let node: Record<string, unknown> = root;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      node[key] = value;
      return;
    }
    const nextIsIndex = /^\d+$/.test(path[index + 1]!);
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = nextIsIndex ? [] : {};
    node = node[key] as Record<string, unknown>;
  });
  return root;
}
