import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import layers, { clientApps, sharedPackages } from './architecture-layers.mjs';
import { checkArchitecture, checkClientApps, formatViolation, readModule } from './check-architecture.mjs';

/** The real layer file without its list of known violations (those name files of the real tree). */
const config = { ...layers, knownViolations: [] };

const roots = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A source tree shaped like apps/server/src, from `{ 'path/file.ts': 'source' }`. */
function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'quire-architecture-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A small tree that follows every arrow; each test adds the one file that breaks one. */
const clean = {
  'errors.ts': 'export class ApiError extends Error {}\n',
  'db/index.ts': "import { Kysely } from 'kysely';\nexport type Db = Kysely<any>;\nexport const openDb = () => new Kysely<any>({} as never);\n",
  'db/schema.ts': 'export interface SpaceRow { id: string }\n',
  'stores/space-store.ts': [
    "import { sql } from 'kysely';",
    "import type { Db } from '../db/index.js';",
    'export interface SpaceRecord { id: string }',
    "export const findSpace = (db: Db, id: string) => db.selectFrom('spaces').selectAll().where('id', '=', id).executeTakeFirst();",
    'export const countSpaces = (db: Db) => sql<number>`select count(*) from spaces`.execute(db);',
    '',
  ].join('\n'),
  'policies/space-policy.ts': "import type { SpaceRow } from '../db/schema.js';\nexport const canView = (space: SpaceRow) => Boolean(space.id);\n",
  'content/tree.ts': "import { ApiError } from '../errors.js';\nexport const parse = (text: string) => { if (!text) throw new ApiError(); return text; };\n",
  'services/space-service.ts': [
    "import type { Db } from '../db/index.js';",
    "import { ApiError } from '../errors.js';",
    "import { canView } from '../policies/space-policy.js';",
    "import { findSpace } from '../stores/space-store.js';",
    "import { parse } from '../content/tree.js';",
    'export async function getSpaceById(db: Db, id: string) {',
    '  const space = await db.transaction().execute((trx) => findSpace(trx, id));',
    '  if (!space || !canView(space)) throw new ApiError();',
    '  return { space, title: parse(space.id) };',
    '}',
    '',
  ].join('\n'),
  'http/presenters/space-presenter.ts': [
    'import type {',
    '  SpaceRecord,',
    "} from '../../stores/space-store.js';",
    'export const presentSpace = (space: SpaceRecord) => ({ id: space.id });',
    '',
  ].join('\n'),
  'http/handlers/space-handlers.ts': [
    "import { getSpaceById } from '../../services/space-service.js';",
    "import { presentSpace } from '../presenters/space-presenter.js';",
    'export const handlers = { getSpaceById: async (db: never, id: string) => presentSpace((await getSpaceById(db, id)).space) };',
    '',
  ].join('\n'),
  'main.ts': "import { handlers } from './http/handlers/space-handlers.js';\nimport { openDb } from './db/index.js';\nvoid handlers; void openDb;\n",
  'stores/space-store.test.ts': "import { handlers } from '../http/handlers/space-handlers.js';\nvoid handlers;\n",
};

function check(extra) {
  return checkArchitecture(tree({ ...clean, ...extra }), config);
}

describe('check-architecture', () => {
  it('passes a tree that follows the layers', () => {
    const result = check({});
    expect(result.violations).toEqual([]);
    expect(result.files).toBe(Object.keys(clean).length);
  });

  it('fails a service that imports from http/, naming file, line and import', () => {
    const result = check({
      'services/sync-service.ts': [
        "import { ApiError } from '../errors.js';",
        '',
        'import {',
        '  presentSpace,',
        "} from '../http/presenters/space-presenter.js';",
        'export const sync = () => presentSpace({ id: String(new ApiError()) });',
        '',
      ].join('\n'),
    });
    expect(result.violations).toHaveLength(1);
    const [violation] = result.violations;
    expect(violation).toMatchObject({ file: 'services/sync-service.ts', line: 3, import: '../http/presenters/space-presenter.js' });
    // The message names the file, line and import, then what the layer may import instead (read from the layer file).
    expect(formatViolation(violation)).toMatch(
      /^services\/sync-service\.ts:3: import '\.\.\/http\/presenters\/space-presenter\.js': an import of http \(http\/presenters\/space-presenter\.ts\) from services, which may import policies, stores, .*types of db$/,
    );
  });

  it('fails a store, and a type-only import below http/, that reach up into http/', () => {
    const result = check({
      'stores/bad-store.ts': "import type { handlers } from '../http/handlers/space-handlers.js';\nexport type H = typeof handlers;\n",
    });
    expect(result.violations.map(formatViolation)).toEqual([
      "stores/bad-store.ts:1: import '../http/handlers/space-handlers.js': a type-only import of http (http/handlers/space-handlers.ts) from stores, which may import db, policies, content",
    ]);
  });

  it('fails content that imports the database, a store or a database package', () => {
    const result = check({
      'content/merge.ts': [
        "import { openDb } from '../db/index.js';",
        "import { findSpace } from '../stores/space-store.js';",
        "import { Kysely } from 'kysely';",
        "import type { Db } from '../db/index.js';",
        'export const merge = () => [openDb, findSpace, Kysely] as unknown as Db;',
        '',
      ].join('\n'),
    });
    expect(result.violations.map((violation) => [violation.line, violation.import])).toEqual([
      [1, '../db/index.js'],
      [2, '../stores/space-store.js'],
      [3, 'kysely'],
      [4, '../db/index.js'],
    ]);
    expect(result.violations[0].message).toContain('an import of db (db/index.ts) from content');
    expect(result.violations[2].message).toBe('imports the package kysely, which content may not use');
    expect(result.violations[3].message).toContain('a type-only import of db');
  });

  it('fails SQL built in a service: query builders, the sql template and schema changes', () => {
    const result = check({
      'services/report-service.ts': [
        "import { sql as raw } from 'kysely';",
        "import type { Db } from '../db/index.js';",
        'export async function report(db: Db) {',
        "  await db.selectFrom('spaces').selectAll().execute();",
        "  await db",
        "    .deleteFrom('spaces').execute();",
        '  await raw`select 1`.execute(db);',
        "  await db.schema.createTable('x').execute();",
        "  return raw.ref('spaces.id');",
        '}',
        '',
      ].join('\n'),
    });
    expect(result.violations.map(formatViolation)).toEqual([
      'services/report-service.ts:4: builds SQL (.selectFrom()) outside stores and db',
      'services/report-service.ts:6: builds SQL (.deleteFrom()) outside stores and db',
      'services/report-service.ts:7: builds SQL (Kysely raw`...` template) outside stores and db',
      'services/report-service.ts:8: builds SQL (.schema.createTable()) outside stores and db',
      'services/report-service.ts:9: builds SQL (Kysely raw.ref()) outside stores and db',
    ]);
  });

  it('fails SQL built in search/ and in a bench: both read and write through stores', () => {
    const result = check({
      'search/search-query.ts': [
        "import { sql } from 'kysely';",
        "import type { Db } from '../db/index.js';",
        "import { findSpace } from '../stores/space-store.js';",
        'export const search = async (db: Db, id: string) => (await findSpace(db, id)) && sql`select 1`.execute(db);',
        '',
      ].join('\n'),
      'bench/edit-bench.ts': [
        "import type { Db } from '../db/index.js';",
        "import { findSpace } from '../stores/space-store.js';",
        "export const seed = async (db: Db) => { await findSpace(db, 'x'); await db.insertInto('spaces').values({ id: 'x' }).execute(); };",
        '',
      ].join('\n'),
    });
    expect(result.violations.map(formatViolation)).toEqual([
      'bench/edit-bench.ts:3: builds SQL (.insertInto()) outside stores and db',
      'search/search-query.ts:4: builds SQL (Kysely sql`...` template) outside stores and db',
    ]);
  });

  it('fails a presenter that value-imports a store, and allows its type-only imports', () => {
    const result = check({
      'http/presenters/space-presenter.ts': [
        "import { type SpaceRecord, findSpace } from '../../stores/space-store.js';",
        "import type { SpaceRow } from '../../db/schema.js';",
        'export const presentSpace = (space: SpaceRecord | SpaceRow) => ({ id: space.id, find: findSpace });',
        '',
      ].join('\n'),
      'http/handlers/other-handlers.ts': "import { type SpaceRecord } from '../../stores/space-store.js';\nexport type S = SpaceRecord;\n",
    });
    expect(result.violations.map(formatViolation)).toEqual([
      "http/handlers/other-handlers.ts:1: import '../../stores/space-store.js': a type-only import of stores (stores/space-store.ts) from http, which may import services, policies, content, storage",
      "http/presenters/space-presenter.ts:1: import '../../stores/space-store.js': an import of stores (stores/space-store.ts) from http, which may import services, policies, content, storage",
    ]);
  });

  it('reads dynamic imports and re-exports as imports', () => {
    const result = check({
      'policies/leak.ts': "export { findSpace } from '../stores/space-store.js';\nexport const later = () => import('../services/space-service.js');\n",
    });
    expect(result.violations.map((violation) => [violation.line, violation.import])).toEqual([
      [1, '../stores/space-store.js'],
      [2, '../services/space-service.js'],
    ]);
  });

  it('fails a file in no layer', () => {
    const result = check({ 'misc/helper.ts': 'export const x = 1;\n' });
    expect(result.violations.map(formatViolation)).toEqual([
      'misc/helper.ts:1: is in no layer: add it or its folder to scripts/architecture-layers.mjs',
    ]);
  });

  it('passes over known violations while they occur and reports those that no longer do', () => {
    const root = tree({ ...clean, 'services/report-service.ts': "import type { Db } from '../db/index.js';\nexport const r = (db: Db) => db.selectFrom('x');\n" });
    const known = [
      { file: 'services/report-service.ts', sql: true, why: 'remove when reports land' },
      { file: 'services/space-service.ts', import: '../http/app.js', why: 'remove when it is fixed' },
    ];
    const result = checkArchitecture(root, { ...config, knownViolations: known });
    expect(result.violations).toEqual([]);
    expect(result.known).toEqual([known[0]]);
    expect(result.unused).toEqual([known[1]]);
  });
});

describe('readModule', () => {
  it('tells type-only imports from value imports', () => {
    const { imports } = readModule('x.ts', [
      "import type { A } from './a.js';",
      "import { type B, type C } from './b.js';",
      "import { type D, e } from './d.js';",
      "import f, { type G } from './f.js';",
      "import * as h from './h.js';",
      "import './side-effect.js';",
      "export type { I } from './i.js';",
      "type J = import('./j.js').J;",
      '',
    ].join('\n'));
    expect(imports.map((entry) => [entry.specifier, entry.typeOnly])).toEqual([
      ['./a.js', true], ['./b.js', true], ['./d.js', false], ['./f.js', false], ['./h.js', false],
      ['./side-effect.js', false], ['./i.js', true], ['./j.js', true],
    ]);
  });

  it('does not take an `sql` that is not Kysely’s for SQL', () => {
    const { sql } = readModule('x.ts', "const sql = (s: TemplateStringsArray) => s.join('');\nexport const q = sql`select`;\n");
    expect(sql).toEqual([]);
  });
});

describe('checkClientApps', () => {
  it('fails a client app that imports the server, its modules or a database package, and passes the client', () => {
    const root = tree({
      'apps/reader/src/ok.ts': [
        "import { createQuireClient } from '@quire/client';",
        "import { classifyLink } from '@quire/markdown-rules';",
        "import { x } from './local.js';",
        'void createQuireClient; void classifyLink; void x;',
        '',
      ].join('\n'),
      'apps/reader/src/local.ts': 'export const x = 1;\n',
      'apps/reader/src/bad.ts': [
        "import { openDb } from '../../server/src/db/index.js';",
        "import pg from 'pg';",
        "import type { X } from '@quire/server/dist/x.js';",
        'void openDb; void pg;',
        '',
      ].join('\n'),
      'apps/reader/test/bad.test.ts': "import { Kysely } from 'kysely';\nvoid Kysely;\n",
    });
    const found = checkClientApps({ ...clientApps, root }).map(formatViolation);
    expect(found).toEqual([
      expect.stringMatching(/^apps\/reader\/src\/bad\.ts:1: import '..\/..\/server\/src\/db\/index\.js': reaches outside apps\/reader/),
      expect.stringMatching(/^apps\/reader\/src\/bad\.ts:2: import 'pg': imports the package pg/),
      expect.stringMatching(/^apps\/reader\/src\/bad\.ts:3: import '@quire\/server\/dist\/x\.js': imports the package @quire\/server/),
      expect.stringMatching(/^apps\/reader\/test\/bad\.test\.ts:1: import 'kysely'/),
    ]);
  });

  it('fails a shared package that imports either app or reaches outside its folder, and passes its own files', () => {
    const root = tree({
      'packages/markdown-rules/src/index.ts': "export { classifyLink } from './links.js';\n",
      'packages/markdown-rules/src/links.ts': 'export const classifyLink = 1;\n',
      'packages/markdown-rules/src/bad.ts': [
        "import { classifyUrl } from '../../../apps/server/src/content/markdown/links.js';",
        "import type { RenderPool } from '@quire/reader';",
        "export { parsesOffThread } from '@quire/server/dist/content/index.js';",
        'void classifyUrl;',
        '',
      ].join('\n'),
    });
    const found = checkClientApps({ ...sharedPackages, root }).map(formatViolation);
    expect(found).toEqual([
      expect.stringMatching(/^packages\/markdown-rules\/src\/bad\.ts:1: import '..\/..\/..\/apps\/server\/src\/content\/markdown\/links\.js': reaches outside packages\/markdown-rules/),
      expect.stringMatching(/^packages\/markdown-rules\/src\/bad\.ts:2: import '@quire\/reader': imports the package @quire\/reader/),
      expect.stringMatching(/^packages\/markdown-rules\/src\/bad\.ts:3: import '@quire\/server\/dist\/content\/index\.js': imports the package @quire\/server/),
    ]);
  });
});
