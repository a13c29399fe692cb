#!/usr/bin/env node
// Fails when the committed files under packages/api-types/src/generated/ differ from what openapi/v1.yaml
// generates now, so a spec change can never land without its types.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { renderGenerated, generatedDir } from './lib/generate.mjs';

const expected = await renderGenerated();
const stale = Object.entries(expected)
  .filter(([name, contents]) => !existsSync(join(generatedDir, name)) || readFileSync(join(generatedDir, name), 'utf8') !== contents)
  .map(([name]) => name);
if (stale.length) {
  console.error(`generated files are not current: ${stale.join(', ')}. Run \`npx turbo build\` (or \`npm run generate\`) and commit the result.`);
  process.exit(1);
}
console.log(`generated files are current (${Object.keys(expected).join(', ')})`);
