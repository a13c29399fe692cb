// The aliases of src/aliases.ts are written by hand; this keeps them complete and honest.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const spec = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@quire/api-types/openapi.json'), 'utf8'));
const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'aliases.ts'), 'utf8');
const aliases = new Map([...source.matchAll(/^export type (\w+) = (?:components\['schemas'\]|operations)\['(\w+)'\];$/gm)].map((m) => [m[1]!, m[2]!]));

describe('api-types aliases', () => {
  it('name every schema of the contract', () => {
    const missing = Object.keys(spec.components.schemas).filter((name) => aliases.get(name) !== name);
    expect(missing).toEqual([]);
  });

  it('name every operation of the contract as <OperationId>Operation', () => {
    const ids: string[] = Object.values(spec.paths).flatMap((item: any) => ['get', 'put', 'post', 'delete', 'patch'].filter((m) => item[m]).map((m) => item[m].operationId));
    expect(ids.length).toBeGreaterThanOrEqual(140);
    const missing = ids.filter((id) => aliases.get(`${id[0]!.toUpperCase()}${id.slice(1)}Operation`) !== id);
    expect(missing).toEqual([]);
  });

  it('point at nothing that the contract lacks', () => {
    const known = new Set([...Object.keys(spec.components.schemas),
      ...Object.values(spec.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId))]);
    expect([...aliases.values()].filter((target) => !known.has(target))).toEqual([]);
  });
});
