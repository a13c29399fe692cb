import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { blobKey, LocalDiskBlobStorage, readBlob, type BlobStore } from '../src/storage/blob-storage.js';
import { DatabaseBlobStorage } from '../src/storage/database-blob-storage.js';
import { DamagedFileError, moveFiles, type MoveFilesProgress } from '../src/storage/move-files.js';
import { builtEntry, run } from './built.js';
import { createTestDatabaseUrl, describeEachDialect, useTestDatabase } from './dialects.js';
import { useForSuite } from './suite-resource.js';

/** A store that fails every write after the first `writes`: a move cut short (a crash, a lost connection). */
function failingAfter(store: BlobStore, writes: number): BlobStore {
  let left = writes;
  return Object.assign(Object.create(store) as BlobStore, {
    putStream: (source: AsyncIterable<Uint8Array>, size: number) => {
      if (left-- <= 0) return Promise.reject(new Error('connection lost'));
      return store.putStream(source, size);
    },
  });
}

describeEachDialect('move-files', (dialect) => {
  const database = useTestDatabase(dialect);
  const folder = useForSuite('blob folder', async () => ({ dir: mkdtempSync(join(tmpdir(), 'quire-move-')) }), async ({ dir }) => rmSync(dir, { recursive: true, force: true }));

  it('copies every file on disk into the store, resumes where a cut-short run stopped, and moves nothing the next time', async () => {
    const disk = new LocalDiskBlobStorage({ dir: join(folder.dir, 'resume') });
    const files = Array.from({ length: 12 }, (_, index) => randomBytes(1000 + index * 50_000));
    for (const bytes of files) await disk.put(bytes);
    const target = new DatabaseBlobStorage(database.db, { chunkSize: 64 * 1024 });

    await expect(moveFiles(disk, failingAfter(target, 5))).rejects.toThrow('connection lost');
    const seen: MoveFilesProgress[] = [];
    const resumed = await moveFiles(disk, target, { onProgress: (progress) => seen.push(progress) });
    expect(resumed).toEqual({
      from: 'disk', to: 'database', files: 12, moved: 7, alreadyMoved: 5,
      bytesMoved: expect.any(Number) as number,
    });
    expect(seen.map((progress) => progress.done)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    for (const bytes of files) expect((await readBlob(target, blobKey(bytes)))?.equals(bytes)).toBe(true);

    expect(await moveFiles(disk, target)).toEqual({ from: 'disk', to: 'database', files: 12, moved: 0, alreadyMoved: 12, bytesMoved: 0 });
  });

  it('stops at a file whose bytes are not those its name says, before counting it as moved', async () => {
    const disk = new LocalDiskBlobStorage({ dir: join(folder.dir, 'damaged') });
    const { hash } = await disk.put(randomBytes(5000));
    writeFileSync(disk.pathOf(hash), randomBytes(5000));
    await expect(moveFiles(disk, new DatabaseBlobStorage(database.db))).rejects.toBeInstanceOf(DamagedFileError);
  });

  it('runs as the admin command `move-files --json`: progress on stderr, one JSON line on stdout, twice', async () => {
    const target = createTestDatabaseUrl(dialect);
    try {
      const dir = join(folder.dir, 'command');
      const disk = new LocalDiskBlobStorage({ dir });
      const files = Array.from({ length: 3 }, () => randomBytes(70_000));
      for (const bytes of files) await disk.put(bytes);
      const env = { DATABASE_URL: target.url, QUIRE_BLOB_DIR: dir, QUIRE_BLOB_STORE: 'database', NODE_ENV: 'production' };

      const first = await run(builtEntry('admin'), ['move-files', '--json'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(first.stdout)).toEqual({ from: 'disk', to: 'database', files: 3, moved: 3, alreadyMoved: 0, bytesMoved: 3 * 70_000 });
      expect(first.stderr).toContain('move-files: 3/3 files looked at, 3 moved (210000 bytes)');

      const second = await run(builtEntry('admin'), ['move-files', '--json'], env);
      expect(second.code, second.stderr).toBe(0);
      expect(JSON.parse(second.stdout)).toEqual({ from: 'disk', to: 'database', files: 3, moved: 0, alreadyMoved: 3, bytesMoved: 0 });
    } finally {
      await target.drop();
    }
  });
}, { timeout: 120_000 });
