import { expect, it } from 'vitest';
import { describeEachDialect } from '../../test/dialects.js';
import { formatEditBenchReport, runEditBench } from './edit-bench.js';

describeEachDialect('edit bench', (dialect) => {
  it('edits one page of a large space writing only that page, its parent, the root and the markdown', async () => {
    const report = await runEditBench({
      sections: 20,
      perSection: 50,
      edits: 3,
      ...(dialect === 'postgres' ? { databaseUrl: process.env.TEST_DATABASE_URL! } : {}),
    });
    expect(report).toMatchObject({ dialect, pages: 1000 });
    expect(report.edits).toHaveLength(3);
    for (const edit of report.edits) {
      expect(edit.objects).toBe(4);
      // A section's object lists 49 child hashes and the root 20: a few KB, far below the space's size.
      expect(edit.bytesWritten).toBeGreaterThan(0);
      expect(edit.bytesWritten).toBeLessThan(report.spaceBytes / 50);
    }
    expect(formatEditBenchReport(report)).toContain('1000-page space');
  });
});
