// Turns openapi/v1.yaml into the artefacts every package uses: the bundled spec (JSON and YAML) and the
// openapi-typescript types. One function, so that `generate` and the "is it current?" check cannot diverge.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import openapiTS, { astToString } from 'openapi-typescript';

import { repoRoot } from './paths.mjs';
export { repoRoot };
export const specRoot = join(repoRoot, 'openapi', 'v1.yaml');
export const generatedDir = join(repoRoot, 'packages', 'api-types', 'src', 'generated');

const NOTICE = 'Generated from openapi/v1.yaml by scripts/generate-api-types.mjs. DO NOT EDIT: change the spec and run `npx turbo build`.';

/** Bundles the split spec into one document with internal refs only. */
export function bundleSpec() {
  const work = mkdtempSync(join(tmpdir(), 'quire-bundle-'));
  try {
    const out = join(work, 'openapi.json');
    execFileSync(join(repoRoot, 'node_modules', '.bin', 'redocly'),
      ['bundle', specRoot, '--output', out, '--ext', 'json', '--config', join(repoRoot, 'redocly.yaml')],
      { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Renders every generated file in memory: { fileName: contents }. */
export async function renderGenerated() {
  const bundled = bundleSpec();
  const withNotice = { 'x-generated': NOTICE, ...bundled };
  const ast = await openapiTS(bundled, { alphabetize: false, exportType: false });
  return {
    'openapi.json': JSON.stringify(withNotice, null, 2) + '\n',
    'openapi.yaml': `# ${NOTICE}\n` + YAML.stringify(bundled, { lineWidth: 0 }),
    'schema.ts': `// ${NOTICE}\n/* eslint-disable */\n` + astToString(ast),
  };
}

export async function writeGenerated(dir = generatedDir) {
  const files = await renderGenerated();
  mkdirSync(dir, { recursive: true });
  for (const [name, contents] of Object.entries(files)) writeFileSync(join(dir, name), contents);
  return Object.keys(files);
}
