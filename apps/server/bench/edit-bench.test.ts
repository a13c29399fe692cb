import { expect, it } from 'vitest';
import { createTestDatabaseUrl, describeEachDialect } from '../test/dialects.js';
import { formatEditBenchReport, runEditBench } from './edit-bench.js';

describeEachDialect('edit bench', (dialect) => {
  it('edits one page of a large space writing only that page, its parent, the root and the markdown', async () => {
    // A database of this test's own (on PostgreSQL a schema of the run, dropped when the run ends: a bench
    // dropping its schema meanwhile broke other files' migrations with "schema ... does not exist").
    const target = createTestDatabaseUrl(dialect);
    const report = await runEditBench({ sections: 20, perSection: 50, edits: 3, databaseUrl: target.url }).finally(() => target.drop());
    expect(report).toMatchObject({ dialect, pages: 1000 });
    expect(report.edits).toHaveLength(3);
    for (const edit of report.edits) {
      expect(edit.objects).toBe(4);
      // A section's object lists 49 child hashes and the root 20: a few KB, far below the space's size.
      expect(edit.bytesWritten).toBeGreaterThan(0);
      expect(edit.bytesWritten).toBeLessThan(report.spaceBytes / 50);
    }
    // The first edit loads the request's tree (every page object); the later ones start from the tree the
    // previous edit left (services/working-trees.ts) and read no tree object at all.
    expect(report.edits[0]!.objectsRead).toBeGreaterThanOrEqual(1000);
    for (const edit of report.edits.slice(1)) expect(edit.objectsRead).toBe(0);
    expect(report.warmMedianObjectsRead).toBe(0);
    // After an edit this process did not make, the kept tree catches up by reading the root and the objects
    // that edit changed (its page and that page's section), never the 1,000 pages.
    expect(report.afterEditsElsewhere).toHaveLength(3);
    for (const edit of report.afterEditsElsewhere) {
      expect(edit.objects).toBe(4);
      expect(edit.objectsRead).toBeGreaterThan(0);
      expect(edit.objectsRead).toBeLessThanOrEqual(3);
    }
    const text = formatEditBenchReport(report);
    expect(text).toContain('1000-page space');
    expect(text).toMatch(/goal: warm median under 15 ms: (met|MISSED)/);
  });
});
