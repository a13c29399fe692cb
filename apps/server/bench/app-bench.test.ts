import { describe, expect, it } from 'vitest';
import { canRunApp } from '../test/web-support.js';
import { formatAppBenchReport, runAppBench } from './app-bench.js';

// A browser bench on the server's own SQLite file: the database's dialect cannot change what it measures.
describe.skipIf(!canRunApp)('app bench', () => {
  it('weighs and times both first screens in Chromium', { timeout: 60_000 }, async () => {
    const report = await runAppBench({ runs: 1, spaces: 1, warmUpRuns: 0 });
    expect(report.screens.map((screen) => screen.name)).toEqual(['sign-in screen (/, signed out)', 'organizations screen (/, signed in)']);
    for (const screen of report.screens) {
      // The app's entry chunk is among the scripts, and every script was counted at a size above zero.
      expect(screen.scripts.some((script) => /^\/assets\/index-.*\.js$/.test(script.url))).toBe(true);
      for (const script of screen.scripts) expect(script.compressedBytes).toBeGreaterThan(0);
      expect(screen.compressedBytes).toBe(screen.scripts.reduce((sum, script) => sum + script.compressedBytes, 0));
      expect(screen.coldMs.median).toBeGreaterThan(0);
      expect(screen.warmMs.median).toBeGreaterThan(0);
    }
    expect(formatAppBenchReport(report)).toContain('navigation to usable, cold');
  });
});
