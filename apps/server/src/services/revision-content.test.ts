import { expect, it } from 'vitest';
import type { BenchOwner } from '../../bench/bench-owner.js';
import { describeEachDialect } from '../../test/dialects.js';
import { useBenchOwnedDatabase } from '../../test/support/bench-owned-database.js';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import { insertRevision } from '../stores/revision-store.js';
import { revisionOfSpace } from './revision-content.js';
import { createSpace } from './space-service.js';

describeEachDialect('revision rows kept by revisionOfSpace', (dialect) => {
  let db: Db;
  let owner: BenchOwner;

  useBenchOwnedDatabase(dialect, 'Revision rows', (suite) => ({ db, owner } = suite));

  it('keeps a committed revision once read, by space, and never one read inside a transaction', async () => {
    const { space } = await createSpace(owner.context, owner.caller, owner.organizationId, { title: 'Kept' });
    const row = await revisionOfSpace(db, space.id, space.revision_id);
    expect(row).toMatchObject({ id: space.revision_id, space_id: space.id });
    // Kept: the next read answers the row read before, without asking the database.
    expect(await revisionOfSpace(db, space.id, space.revision_id)).toBe(row);
    // By space as the query is: the id under another space is none.
    const other = await createSpace(owner.context, owner.caller, owner.organizationId, { title: 'Other' });
    expect(await revisionOfSpace(db, other.space.id, space.revision_id)).toBeUndefined();

    // A revision seen only inside a transaction that is rolled back was never there.
    const id = newId();
    const rolledBack = new Error('rolled back');
    await expect(db.transaction().execute(async (tx) => {
      await insertRevision(tx, { ...row!, id });
      expect(await revisionOfSpace(tx, space.id, id)).toMatchObject({ id });
      throw rolledBack;
    })).rejects.toBe(rolledBack);
    expect(await revisionOfSpace(db, space.id, id)).toBeUndefined();
  });
});
