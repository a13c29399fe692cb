#!/usr/bin/env node
// Builds whatever is missing or out of date before `npm start`, `npm run admin` and friends run the server.
// turbo replays cached results, so this costs about a second when nothing changed. Every line of build
// output goes to stderr: the admin commands promise exactly one JSON object on stdout.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './lib/paths.mjs';

const turbo = join(repoRoot, 'node_modules', '.bin', 'turbo');
const result = spawnSync(turbo, ['run', 'build', '--filter=@quire/server...', '--output-logs=errors-only', '--log-prefix=none'], {
  cwd: repoRoot,
  stdio: ['ignore', process.stderr, process.stderr],
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' },
});
if (result.error) {
  console.error(`Could not run the build (${result.error.message}). Run \`npm ci\` first.`);
  process.exit(1);
}
if (result.status !== 0) {
  console.error('The build failed; see the output above.');
  process.exit(result.status ?? 1);
}
