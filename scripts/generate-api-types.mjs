#!/usr/bin/env node
// Regenerates packages/api-types/src/generated/ from openapi/v1.yaml (run by `turbo build` via `generate`).
import { writeGenerated, generatedDir } from './lib/generate.mjs';

const written = await writeGenerated();
console.log(`generated ${written.join(', ')} in ${generatedDir}`);
