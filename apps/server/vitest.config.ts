import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run the client from its source, so they do not depend on the client's build being current.
    alias: [
      { find: '@quire/client', replacement: fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url)) },
      // The benches import the server as `#server/...`: run, the built dist/ (package.json `imports`); tested, its sources.
      { find: /^#server\/(.*)\.js$/, replacement: `${fileURLToPath(new URL('./src/', import.meta.url))}$1.ts` },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // The wire-compatibility gate's per-file check and figures (test/gates/wire-gate.ts).
    setupFiles: ['test/gates/wire-setup.ts'],
    // Each file starts real servers on real databases; a few at a time keeps a 2-core machine responsive.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
  },
});
