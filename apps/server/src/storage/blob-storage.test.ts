import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashObject } from '../content/hash.js';
import { LocalDiskBlobStorage, nodeFileSystem, readBlob, withFallback, type BlobFileSystem } from './blob-storage.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'quire-blobs-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The key of the bytes: the content core's blob key. */
const sha256 = (bytes: Uint8Array): string => hashObject('blob', bytes);

/** The real file system, with every call written down (and a file handle's fsync too). */
function recordingFileSystem(calls: string[], overrides: Partial<BlobFileSystem> = {}): BlobFileSystem {
  return {
    ...nodeFileSystem,
    mkdir: async (path, options) => {
      calls.push(`mkdir ${path}`);
      return nodeFileSystem.mkdir(path, options);
    },
    open: async (path, flags, mode) => {
      calls.push(`open ${path} ${String(flags)}`);
      const handle = await nodeFileSystem.open(path, flags, mode);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        calls.push(`fsync ${path}`);
        return sync();
      };
      return handle;
    },
    rename: async (from, to) => {
      calls.push(`rename ${from} -> ${to}`);
      if (overrides.rename) return overrides.rename(from, to);
      return nodeFileSystem.rename(from, to);
    },
    unlink: async (path) => {
      calls.push(`unlink ${path}`);
      return nodeFileSystem.unlink(path);
    },
  };
}

describe('LocalDiskBlobStorage', () => {
  it('stores bytes under ab/cd/<sha256> and reads them back with their size', async () => {
    const storage = new LocalDiskBlobStorage({ dir });
    const bytes = randomBytes(300_000);
    const hash = sha256(bytes);

    expect(await storage.has(hash)).toBe(false);
    expect(await storage.get(hash)).toBeUndefined();
    expect(await storage.put(bytes)).toEqual({ hash, size: bytes.length });

    const path = join(dir, hash.slice(0, 2), hash.slice(2, 4), hash);
    expect(storage.pathOf(hash)).toBe(path);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(await storage.has(hash)).toBe(true);
    const blob = await storage.get(hash);
    expect(blob?.size).toBe(bytes.length);
    const chunks: Buffer[] = [];
    for await (const chunk of blob!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect((await readBlob(storage, hash))?.equals(bytes)).toBe(true);
    // Nothing is left in the temp folder once a write is done.
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
  });

  it('stores empty files too', async () => {
    const storage = new LocalDiskBlobStorage({ dir });
    const { hash, size } = await storage.put(new Uint8Array(0));
    expect(hash).toBe(hashObject('blob', new Uint8Array(0)));
    expect(size).toBe(0);
    expect((await readBlob(storage, hash))?.length).toBe(0);
  });

  it('writes a temp file, fsyncs it, renames it into place, then fsyncs the directory', async () => {
    const calls: string[] = [];
    const storage = new LocalDiskBlobStorage({ dir, fs: recordingFileSystem(calls) });
    const bytes = Buffer.from('durable bytes');
    const hash = sha256(bytes);
    await storage.put(bytes);

    const final = storage.pathOf(hash);
    const finalDir = join(dir, hash.slice(0, 2), hash.slice(2, 4));
    const openTemp = calls.findIndex((call) => call.startsWith(`open ${join(dir, 'tmp')}/`) && call.endsWith(' wx'));
    const temp = calls[openTemp]!.split(' ')[1]!;
    const fsyncTemp = calls.indexOf(`fsync ${temp}`);
    const rename = calls.indexOf(`rename ${temp} -> ${final}`);
    const fsyncDir = calls.indexOf(`fsync ${finalDir}`);
    expect(openTemp).toBeGreaterThanOrEqual(0);
    expect(fsyncTemp).toBeGreaterThan(openTemp);
    expect(rename).toBeGreaterThan(fsyncTemp);
    expect(fsyncDir).toBeGreaterThan(rename);
    // The fan-out directories were new, so their parents are synced as well.
    expect(calls.indexOf(`fsync ${join(dir, hash.slice(0, 2))}`)).toBeGreaterThan(rename);
    expect(calls.indexOf(`fsync ${dir}`)).toBeGreaterThan(rename);
    expect(existsSync(temp)).toBe(false);
  });

  it('leaves no blob and no temp file when the write fails before the rename (a crash)', async () => {
    const calls: string[] = [];
    const storage = new LocalDiskBlobStorage({
      dir,
      fs: recordingFileSystem(calls, { rename: async () => { throw Object.assign(new Error('disk gone'), { code: 'EIO' }); } }),
    });
    const bytes = Buffer.from('never acknowledged');
    const hash = sha256(bytes);
    await expect(storage.put(bytes)).rejects.toThrow('disk gone');
    expect(await storage.has(hash)).toBe(false);
    expect(await storage.get(hash)).toBeUndefined();
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
    expect(calls.some((call) => call.startsWith('unlink '))).toBe(true);
  });

  it('never shows a temp file left by a crash as a blob, and sweeps old ones away', async () => {
    const storage = new LocalDiskBlobStorage({ dir });
    const bytes = Buffer.from('half written');
    const hash = sha256(bytes);
    mkdirSync(join(dir, 'tmp'), { recursive: true });
    const stale = join(dir, 'tmp', `${hash.slice(0, 16)}-0000000000000000`);
    const fresh = join(dir, 'tmp', `${hash.slice(0, 16)}-1111111111111111`);
    writeFileSync(stale, bytes.subarray(0, 4));
    writeFileSync(fresh, bytes.subarray(0, 4));
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);

    expect(await storage.has(hash)).toBe(false);
    expect(await storage.removeStaleTempFiles()).toBe(1);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    // A later put of the same bytes is not confused by the leftover.
    await storage.put(bytes);
    expect((await readBlob(storage, hash))?.equals(bytes)).toBe(true);
  });

  it('is idempotent: a second put of the same bytes writes nothing, concurrent puts agree', async () => {
    const calls: string[] = [];
    const storage = new LocalDiskBlobStorage({ dir, fs: recordingFileSystem(calls) });
    const bytes = Buffer.from('same bytes');
    const first = await storage.put(bytes);
    calls.length = 0;
    expect(await storage.put(bytes)).toEqual(first);
    expect(calls.filter((call) => call.startsWith('open ') || call.startsWith('rename '))).toEqual([]);

    const other = Buffer.from('written five times at once');
    const results = await Promise.all(Array.from({ length: 5 }, () => storage.put(other)));
    expect(new Set(results.map((result) => result.hash))).toEqual(new Set([sha256(other)]));
    expect((await readBlob(storage, sha256(other)))?.equals(other)).toBe(true);
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
  });

  it('refuses anything but a SHA-256 hex digest as a key, so no path can be smuggled in', async () => {
    const storage = new LocalDiskBlobStorage({ dir });
    for (const hash of ['../../etc/passwd', 'A'.repeat(64), `${'a'.repeat(63)}/`, '', 'tmp']) {
      expect(await storage.has(hash)).toBe(false);
      expect(await storage.get(hash)).toBeUndefined();
    }
    expect(() => storage.pathOf('../x')).toThrow(TypeError);
  });

  it('falls back to another source (the database) for bytes it does not hold, and writes only to disk', async () => {
    const disk = new LocalDiskBlobStorage({ dir });
    const inDatabase = Buffer.from('a file body still stored as a content object');
    const storage = withFallback(disk, async (hash) => (hash === sha256(inDatabase) ? inDatabase : undefined));
    expect(await storage.has(sha256(inDatabase))).toBe(true);
    expect((await readBlob(storage, sha256(inDatabase)))?.equals(inDatabase)).toBe(true);
    expect(await storage.has('0'.repeat(64))).toBe(false);
    expect(await storage.get('../x')).toBeUndefined();
    const onDisk = Buffer.from('new upload');
    await storage.put(onDisk);
    expect(await disk.has(sha256(onDisk))).toBe(true);
    expect((await readBlob(storage, sha256(onDisk)))?.equals(onDisk)).toBe(true);
  });
});
