import { expect, it } from 'vitest';
import { createTestDatabaseUrl, describeEachDialect } from '../test/dialects.js';
import { formatSearchBenchReport, runSearchBench } from './search-bench.js';

describeEachDialect('search bench', (dialect) => {
  // Migrating a new database, indexing 1,500 pages twice and timing every query take 20-60 s on a loaded 2-core
  // machine, above the default limit of 30 s. 1,500 pages: a common word is then in more sections than
  // FULL_SCORING_LIMIT, so that it is answered best-first.
  it('builds a small space, runs every query and reports latencies', { timeout: 120_000 }, async () => {
    // A database of this test's own (on PostgreSQL a schema of the run, dropped when the run ends: a bench
    // dropping its schema meanwhile broke other files' migrations with "schema ... does not exist").
    const target = createTestDatabaseUrl(dialect);
    try {
      const report = await runSearchBench({ pages: 1_500, iterations: 3, databaseUrl: target.url });
      expect(report).toMatchObject({ dialect, pages: 1_500 });
      expect(report.sections).toBeGreaterThan(1_500);
      expect(report.queries.map((q) => q.name)).toEqual([
        'rare word', 'common word (91% of pages)', 'two common words (91%)', 'prefix of a common word', 'common word + rare word',
      ]);
      const common = report.queries[1]!;
      // About 91% of the pages hold the common words.
      expect(common.count).toBeGreaterThan(1_300);
      expect(common.count).toBeLessThan(1_500);
      expect(report.queries[0]!.count).toBeGreaterThan(0);
      // Common words are read best-first, from a fraction of their matches; a rare word has its matches scored.
      expect(report.queries.map((q) => q.method)).toEqual(['scored', 'best-first', 'best-first', 'best-first', 'scored']);
      expect(common.candidates).toBeLessThan(common.count / 2);
      // Every answer's first ten pages are those of scoring every match (issue 27).
      for (const q of report.queries) expect(q.topTenAsUncapped, q.name).toBe(true);
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
      for (const edit of report.fullWalkReindexes) expect(edit).toMatchObject({ mode: 'full', objectsRead: 1_500, pagesHashed: 1_500, storedHashesRead: 1_500, blobsRead: 1 });
      expect(formatSearchBenchReport(report)).toContain('two common words');
      expect(formatSearchBenchReport(report)).toContain('reindex after a one-page edit');
      expect(formatSearchBenchReport(report)).toMatch(/common word in 91% of pages \(goal p99 < 20 ms with the top 10 of scoring every match\)/);
    } finally {
      await target.drop();
    }
  });
});
