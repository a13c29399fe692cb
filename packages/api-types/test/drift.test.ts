// Proves the point of generating types: when a schema changes, code written against the old contract stops
// compiling. Types are generated from the real bundled spec, then from a copy with one schema changed, and the
// same consumer file is type-checked against both.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const tsc = join(require.resolve('typescript/package.json'), '..', 'bin', 'tsc');
const bundled = JSON.parse(readFileSync(require.resolve('@quire/api-types/openapi.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'quire-drift-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Code written against today's contract: builds a User and the body of a collection creation.
const consumer = `
import type { components, operations } from './schema.js';
type User = components['schemas']['User'];
type CreateCollectionBody = NonNullable<operations['createCollection']['requestBody']>['content']['application/json'];
export const user: User = { object: 'user', id: 'u1', displayName: 'Ada', urls: { location: 'http://localhost/v1/users/u1' } };
export const body: CreateCollectionBody = { title: 'Guides' };
export const name: string = user.displayName;
`;

async function typecheck(spec: unknown): Promise<{ ok: boolean; output: string }> {
  const dir = mkdtempSync(join(work, 'case-'));
  writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(spec as never)));
  writeFileSync(join(dir, 'consumer.ts'), consumer);
  try {
    execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--target', 'es2022', '--skipLibCheck', join(dir, 'consumer.ts')], { stdio: 'pipe' });
    return { ok: true, output: '' };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: Buffer }).stdout ?? error) };
  }
}

const mutate = (change: (spec: any) => void) => { const copy = structuredClone(bundled); change(copy); return copy; };

describe('generated types follow the contract', () => {
  it('compiles the consumer against the current contract', async () => {
    const result = await typecheck(bundled);
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  }, 60_000);

  it('breaks compilation when a schema gains a required field', async () => {
    const result = await typecheck(mutate((spec) => { spec.components.schemas.User.required.push('email'); }));
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/email/);
  }, 60_000);

  it('breaks compilation when a field is renamed', async () => {
    const result = await typecheck(mutate((spec) => {
      const props = spec.components.schemas.User.properties;
      props.name = props.displayName;
      delete props.displayName;
      spec.components.schemas.User.required = spec.components.schemas.User.required.map((f: string) => (f === 'displayName' ? 'name' : f));
    }));
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/displayName/);
  }, 60_000);
});
