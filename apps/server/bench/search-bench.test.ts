import { expect, it } from 'vitest';
import { createTestDatabaseUrl, describeEachDialect } from '../test/dialects.js';
import { formatSearchBenchReport, runSearchBench } from './search-bench.js';

describeEachDialect('search bench', (dialect) => {
  // Migrating a new database, indexing 400 pages twice and timing every query take 20-30 s on a loaded 2-core
  // machine, close to the default limit of 30 s.
  it('builds a small space, runs every query and reports latencies', { timeout: 120_000 }, async () => {
    // A database of this test's own (on PostgreSQL a schema of the run, dropped when the run ends: a bench
    // dropping its schema meanwhile broke other files' migrations with "schema ... does not exist").
    const target = createTestDatabaseUrl(dialect);
    try {
      const report = await runSearchBench({ pages: 400, iterations: 3, databaseUrl: target.url });
      expect(report).toMatchObject({ dialect, pages: 400 });
      expect(report.sections).toBeGreaterThan(400);
      expect(report.queries.map((q) => q.name)).toEqual([
        'rare word', 'common word (91% of pages)', 'two common words (91%)', 'prefix of a common word', 'common word + rare word',
      ]);
      const common = report.queries[1]!;
      // About 91% of the pages hold the common words.
      expect(common.count).toBeGreaterThan(330);
      expect(common.count).toBeLessThan(400);
      expect(report.queries[0]!.count).toBeGreaterThan(0);
      // Below the cap (a rare word: all its matches are ranked) the answer is the uncapped one.
      expect(report.queries[0]!.topTenAsUncapped).toBe(true);
      for (const q of report.queries) expect(q.cappedLatency.runs).toBe(3);
      // A one-page edit is reindexed by comparing trees: it reads the page and its ancestors (a tree three
      // levels deep), hashes and compares those pages, reads one blob and writes the page's rows.
      expect(report.editReindexes).toHaveLength(6);
      for (const edit of report.editReindexes) {
        expect(edit).toMatchObject({ mode: 'changes', blobsRead: 1 });
        expect(edit.objectsRead).toBeLessThanOrEqual(2 + 2 * 3);
        expect(edit.pagesHashed).toBeLessThanOrEqual(3);
        expect(edit.storedHashesRead).toBe(edit.pagesHashed);
        expect(edit.rowsWritten).toBeGreaterThan(0);
      }
      // The full walk it replaced reads and hashes every page.
      for (const edit of report.fullWalkReindexes) expect(edit).toMatchObject({ mode: 'full', objectsRead: 400, pagesHashed: 400, storedHashesRead: 400, blobsRead: 1 });
      expect(formatSearchBenchReport(report)).toContain('two common words');
      expect(formatSearchBenchReport(report)).toContain('reindex after a one-page edit');
      expect(formatSearchBenchReport(report)).toMatch(/common word in 91% of pages \(goal p99 < 20 ms with the uncapped top 10\)/);
    } finally {
      await target.drop();
    }
  });
});
