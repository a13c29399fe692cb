import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import layers, { clientApps, fileSizes, outsideProduct, sharedPackages, testPlacement } from './architecture-layers.mjs';
import {
  checkArchitecture, checkBenchSql, checkClientApps, checkFileSizes, checkProductBuild, checkTestPlacement, formatViolation, readModule,
} from './check-architecture.mjs';

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

  it('fails SQL built in search/: it reads and writes through stores', () => {
    const result = check({
      'search/search-query.ts': [
        "import { sql } from 'kysely';",
        "import type { Db } from '../db/index.js';",
        "import { findSpace } from '../stores/space-store.js';",
        'export const search = async (db: Db, id: string) => (await findSpace(db, id)) && sql`select 1`.execute(db);',
        '',
      ].join('\n'),
    });
    expect(result.violations.map(formatViolation)).toEqual([
      'search/search-query.ts:4: builds SQL (Kysely sql`...` template) outside stores and db',
    ]);
  });

  it('fails product code that imports bench code or test support, and lets a test under src/ use test support', () => {
    const result = check({
      'services/seed-service.ts': "import { seededRandom } from '../../bench/seeded-random.js';\nexport const seed = seededRandom;\n",
      'content/clock.ts': "export { fixedClock } from '../../test/support/content-core.js';\n",
      'content/tree.test.ts': "import { fixedClock } from '../../test/support/content-core.js';\nvoid fixedClock;\n",
    });
    expect(result.violations.map(formatViolation)).toEqual([
      "content/clock.ts:1: import '../../test/support/content-core.js': imports test support (test/support/content-core.ts): product code under src/ imports neither bench code nor test support, which are not built into dist/",
      "services/seed-service.ts:1: import '../../bench/seeded-random.js': imports bench code (bench/seeded-random.ts): product code under src/ imports neither bench code nor test support, which are not built into dist/",
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
      "http/handlers/other-handlers.ts:1: import '../../stores/space-store.js': a type-only import of stores (stores/space-store.ts) from http, which may import services, policies, content, storage, limits, metrics",
      "http/presenters/space-presenter.ts:1: import '../../stores/space-store.js': an import of stores (stores/space-store.ts) from http, which may import services, policies, content, storage, limits, metrics",
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

describe('checkTestPlacement', () => {
  it('fails a test under src/ that starts a server or the app, spawns a build or goes through the client; passes unit tests and test/', () => {
    const root = tree({
      'src/http/app.ts': 'export const createApp = () => 1;\n',
      'src/http/app.test.ts': "import { startTestServer } from '../../test/server.js';\nvoid startTestServer;\n",
      'src/storage/route.test.ts': [
        "import { createApp } from '../http/app.js';",
        "import { builtEntry } from '../../test/built.js';",
        "import { paginate } from '@quire/client';",
        "import { chromium } from 'playwright-core';",
        'void createApp; void builtEntry; void paginate; void chromium;',
        '',
      ].join('\n'),
      'src/content/tree.test.ts': [
        "import { describeEachDialect } from '../../test/dialects.js';",
        "import { fixedClock } from '../../test/support/content-core.js';",
        'void describeEachDialect; void fixedClock;',
        '',
      ].join('\n'),
      'test/spaces.test.ts': "import { startTestServer } from './server.js';\nimport { paginate } from '@quire/client';\nvoid startTestServer; void paginate;\n",
    });
    expect(checkTestPlacement({ ...testPlacement, root }).map(formatViolation)).toEqual([
      "src/http/app.test.ts:1: import '../../test/server.js': a test under src/ that starts a server (startTestServer): move it to test/ (beside the code sit unit tests only)",
      "src/storage/route.test.ts:1: import '../http/app.js': a test under src/ that starts the app (createApp): move it to test/ (beside the code sit unit tests only)",
      "src/storage/route.test.ts:2: import '../../test/built.js': a test under src/ that spawns a built process: move it to test/ (beside the code sit unit tests only)",
      "src/storage/route.test.ts:3: import '@quire/client': a test under src/ that goes through @quire/client: move it to test/ (beside the code sit unit tests only)",
      "src/storage/route.test.ts:4: import 'playwright-core': a test under src/ that drives a browser: move it to test/ (beside the code sit unit tests only)",
    ]);
  });
});

describe('checkProductBuild', () => {
  const serverTree = (build, benchOutDir) => tree({
    'tsconfig.json': JSON.stringify(build),
    'bench/tsconfig.json': JSON.stringify({ compilerOptions: { rootDir: '.', outDir: benchOutDir }, include: ['**/*.ts'] }),
    'src/main.ts': 'export {};\n',
    'src/main.test.ts': 'export {};\n',
    'bench/run.ts': 'export {};\n',
    'test/support/git-fixtures.ts': 'export {};\n',
  });

  it('passes a build of src/ without its tests and a bench build beside dist/', () => {
    const root = serverTree({ compilerOptions: { rootDir: 'src', outDir: 'dist' }, include: ['src/**/*.ts'], exclude: ['src/**/*.test.ts'] }, '../bench-dist');
    expect(checkProductBuild({ ...outsideProduct, root })).toEqual([]);
  });

  it('fails a build of dist/ that takes in bench code, test support or a test, and a bench build into dist/', () => {
    const root = serverTree({ compilerOptions: { rootDir: '.', outDir: 'dist' }, include: ['src/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'] }, '../dist/bench');
    expect(checkProductBuild({ ...outsideProduct, root }).map(formatViolation)).toEqual([
      'tsconfig.json:1: builds bench/run.ts into dist/: bench/ is not product code, so the build must not include it',
      'tsconfig.json:1: builds src/main.test.ts into dist/: a test is not product code, so the build must not include it',
      'tsconfig.json:1: builds test/support/git-fixtures.ts into dist/: test/ is not product code, so the build must not include it',
      'bench/tsconfig.json:1: writes the benches into dist/bench, which must be an outDir outside dist/',
    ]);
  });
});

describe('checkBenchSql', () => {
  it('fails a bench that builds SQL, and passes one that goes through stores', () => {
    const root = tree({
      'bench/seed-bench.ts': "import type { Db } from '#server/db/index.js';\nexport const seed = (db: Db) => db.insertInto('spaces').values({ id: 'x' }).execute();\n",
      'bench/edit-bench.ts': "import { findSpace } from '#server/stores/space-store.js';\nexport const edit = findSpace;\n",
    });
    expect(checkBenchSql({ ...outsideProduct, root }).map(formatViolation)).toEqual([
      'bench/seed-bench.ts:2: builds SQL (.insertInto()) in a bench: benches write and read through services and stores',
    ]);
  });
});

describe('checkFileSizes', () => {
  const lines = (count) => 'export const x = 1;\n'.repeat(count);
  const sizes = (extra = {}) => tree({
    'apps/server/src/services/space-service.ts': lines(400),
    'apps/server/src/services/site-service.ts': lines(401),
    'apps/server/src/services/site-service.test.ts': lines(900),
    'apps/server/src/stores/space-store.ts': lines(900),
    'apps/reader/src/render/page.ts': lines(300),
    'apps/reader/src/handler.ts': `${lines(300)}export const y = 2;`,
    ...extra,
  });

  it('fails a file past its folder ceiling, naming file, length and ceiling; tests and other folders are free', () => {
    const result = checkFileSizes({ ...fileSizes, root: sizes(), knownViolations: [] });
    expect(result.violations.map(formatViolation)).toEqual([
      'apps/server/src/services/site-service.ts:1: has 401 lines, over the ceiling of 400 lines per file in apps/server/src/services/: split it',
      'apps/reader/src/handler.ts:1: has 301 lines, over the ceiling of 300 lines per file in apps/reader/src/: split it',
    ]);
  });

  it('passes over known oversized files while they are too long and reports those that no longer are', () => {
    const known = [
      { file: 'apps/server/src/services/site-service.ts', why: 'being split' },
      { file: 'apps/server/src/services/space-service.ts', why: 'being split' },
    ];
    const result = checkFileSizes({ ...fileSizes, root: sizes(), knownViolations: known });
    expect(result.violations.map((violation) => violation.file)).toEqual(['apps/reader/src/handler.ts']);
    expect(result.known).toEqual([known[0]]);
    expect(result.unused).toEqual([known[1]]);
  });
});
