import { expect, it } from 'vitest';
import { createTestDatabaseUrl, describeEachDialect } from '../test/dialects.js';
import { formatImportBenchReport, runImportBench } from './import-bench.js';

describeEachDialect('import bench', (dialect) => {
  // Writing and committing 200 pages, migrating a new database and importing take 10-30 s on a loaded 2-core machine.
  it('imports a small generated repository through the job and reports it against the goal', { timeout: 180_000 }, async () => {
    const target = createTestDatabaseUrl(dialect);
    try {
      const report = await runImportBench({ sections: 2, databaseUrl: target.url });
      expect(report).toMatchObject({ dialect, pages: 200, files: 5, state: 'success' });
      // Pages, their folders and the files: objects of the revision's tree, each stored once.
      expect(report.contentObjects).toBeGreaterThan(200);
      expect(report.importMs).toBeGreaterThan(0);
      expect(report.importCpuMs).toBeGreaterThan(0);
      // The goal is for 5,000 pages: a smaller import never counts as meeting it.
      expect(report.goalMet).toBe(false);
      expect(formatImportBenchReport(report)).toMatch(new RegExp(`Git import of 200 pages and 5 files .*, ${dialect}: .*goal 5,000 pages < 2 s: missed`));
    } finally {
      await target.drop();
    }
  });
});
