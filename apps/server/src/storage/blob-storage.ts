import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { repoRoot } from '../config.js';
import { hashObject } from '../content/hash.js';
import { BlobHasher } from './blob-streams.js';

/*
 * File bytes (uploaded files served by `downloadURL`, rendered PDFs), kept apart from the database: they can
 * be large, they are streamed rather than loaded, and they are immutable, so they are keyed by a SHA-256.
 * The key is the content core's key of a blob (`hashObject('blob', bytes)`: SHA-256 over `blob <length>\0`
 * and the bytes), so a revision file's `blob` is also its key here and a download URL can be signed from
 * the file object alone, whether its bytes are on disk or still in the database (see `withFallback`).
 */

export interface PutResult {
  /** The content core's blob key of the bytes, 64 lowercase hex characters. */
  hash: string;
  size: number;
}

export interface StoredBlob {
  size: number;
  /** The bytes; the caller must consume or destroy it, or its file descriptor stays open. */
  stream: Readable;
}

/**
 * Where file bytes live: one machine's disk (below), the database (database-blob-storage.ts) or an
 * S3-compatible bucket (s3-blob-storage.ts); `file-services.ts` picks one from the configuration.
 */
export interface BlobStorage {
  /** Stores the bytes (a no-op when they are already stored) and resolves once they are durable. */
  put(bytes: Uint8Array): Promise<PutResult>;
  /**
   * Stores the `size` bytes `source` yields without holding them all in memory, like `put` otherwise.
   * Rejects with a BlobSizeMismatchError, storing nothing, when the source yields another number of bytes.
   */
  putStream(source: AsyncIterable<Uint8Array>, size: number): Promise<PutResult>;
  /** The stored bytes, or undefined when nothing is stored under that hash (or the hash is malformed). */
  get(hash: string): Promise<StoredBlob | undefined>;
  has(hash: string): Promise<boolean>;
}

/** A store of its own (not a fallback wrapper): what the sweep and the move between stores need. */
export interface BlobStore extends BlobStorage {
  /** `disk`, `database` or the `s3://bucket/prefix` URL: how logs and the move command name it. */
  readonly description: string;
  /**
   * Removes what writes a crash interrupted left behind, begun more than `olderThanMs` ago: never visible as
   * files, this only reclaims their space. Returns how many were removed.
   */
  removeStaleUploads(olderThanMs?: number, now?: number): Promise<number>;
}

const HASH = /^[0-9a-f]{64}$/;

/** How old an unfinished write must be before a sweep takes it for a crash's leftovers rather than a slow upload. */
export const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** Whether `hash` is the shape of a key of this storage (used before it goes anywhere near a path). */
export function isBlobHash(hash: string): boolean {
  return HASH.test(hash);
}

/** The key the bytes are stored under. */
export function blobKey(bytes: Uint8Array): string {
  return hashObject('blob', bytes);
}

/** Reads a whole blob into memory; for the small ones (images embedded in a PDF), never for downloads. */
export async function readBlob(storage: BlobStorage, hash: string, maxBytes = 64 * 1024 * 1024): Promise<Buffer | undefined> {
  const blob = await storage.get(hash);
  if (!blob) return undefined;
  if (blob.size > maxBytes) {
    blob.stream.destroy();
    throw new RangeError(`blob ${hash} is ${blob.size} bytes, more than the ${maxBytes} allowed here`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of blob.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Reads from `storage` first, then from `fallback` (the content core's `ObjectReader.getBlob`, where file
 * bodies live today), so download URLs work for bytes on either side; writes go to `storage` only.
 */
export function withFallback(storage: BlobStorage, fallback: (hash: string) => Promise<Uint8Array | undefined>): BlobStorage {
  return {
    put: (bytes) => storage.put(bytes),
    putStream: (source, size) => storage.putStream(source, size),
    async get(hash) {
      const stored = await storage.get(hash);
      if (stored || !isBlobHash(hash)) return stored;
      const bytes = await fallback(hash);
      if (!bytes) return undefined;
      return { size: bytes.byteLength, stream: Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]) };
    },
    async has(hash) {
      if (await storage.has(hash)) return true;
      return isBlobHash(hash) && (await fallback(hash)) !== undefined;
    },
  };
}

/**
 * The file-system calls the storage makes, so that tests can watch their order and make one fail (a crash
 * between writing and renaming). Production uses node:fs/promises.
 */
export interface BlobFileSystem {
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
  open(path: string, flags: string | number, mode?: number): Promise<fsp.FileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  access(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<{ mtimeMs: number }>;
}

export const nodeFileSystem: BlobFileSystem = {
  mkdir: (path, options) => fsp.mkdir(path, options),
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  access: (path) => fsp.access(path, fsConstants.F_OK),
  readdir: (path) => fsp.readdir(path),
  stat: (path) => fsp.stat(path),
};

export interface LocalDiskBlobStorageOptions {
  /** Root directory; relative paths resolve against the repository root, like the SQLite file. Default `./data/blobs`. */
  dir?: string;
  fs?: BlobFileSystem;
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}

/**
 * Blobs under `<dir>/ab/cd/<sha256>`, two levels of fan-out so no directory grows past 65,536 entries per
 * level. A write goes to `<dir>/tmp/<random>` (same file system, so the rename is atomic), is fsynced, then
 * renamed into place, and the target directory is fsynced so the rename itself survives a power cut: once
 * `put` resolves the blob is there after a crash, and before it resolves a reader sees either nothing or
 * the whole file, never a torn one. Putting the same bytes twice is a no-op the second time.
 */
export class LocalDiskBlobStorage implements BlobStore {
  readonly description = 'disk';
  readonly dir: string;
  private readonly fs: BlobFileSystem;
  private readonly tmpDir: string;

  constructor(options: LocalDiskBlobStorageOptions = {}) {
    this.dir = resolve(repoRoot, options.dir ?? './data/blobs');
    this.tmpDir = join(this.dir, 'tmp');
    this.fs = options.fs ?? nodeFileSystem;
  }

  /** Where the blob with this hash lives (whether or not it exists). Throws on a malformed hash. */
  pathOf(hash: string): string {
    if (!isBlobHash(hash)) throw new TypeError('not a blob hash');
    return join(this.dir, hash.slice(0, 2), hash.slice(2, 4), hash);
  }

  async put(bytes: Uint8Array): Promise<PutResult> {
    const hash = blobKey(bytes);
    const result = { hash, size: bytes.byteLength };
    if (await this.exists(this.pathOf(hash))) return result;
    await this.writeThenPlace(async (handle) => {
      let written = 0;
      while (written < bytes.byteLength) {
        const { bytesWritten } = await handle.write(bytes, written, bytes.byteLength - written);
        written += bytesWritten;
      }
      return hash;
    });
    return result;
  }

  async putStream(source: AsyncIterable<Uint8Array>, size: number): Promise<PutResult> {
    const hasher = new BlobHasher(size);
    const hash = await this.writeThenPlace(async (handle) => {
      for await (const chunk of source) {
        hasher.update(chunk);
        let written = 0;
        while (written < chunk.byteLength) {
          const { bytesWritten } = await handle.write(chunk, written, chunk.byteLength - written);
          written += bytesWritten;
        }
      }
      return hasher.digest();
    });
    return { hash, size };
  }

  /** Every stored file, for the move to another store; in no particular order. */
  async *list(): AsyncGenerator<{ hash: string; path: string }> {
    for (const first of await this.namesIn(this.dir)) {
      if (!/^[0-9a-f]{2}$/.test(first)) continue;
      for (const second of await this.namesIn(join(this.dir, first))) {
        if (!/^[0-9a-f]{2}$/.test(second)) continue;
        for (const name of await this.namesIn(join(this.dir, first, second))) {
          if (isBlobHash(name) && name.startsWith(first + second)) yield { hash: name, path: join(this.dir, first, second, name) };
        }
      }
    }
  }

  private async namesIn(path: string): Promise<string[]> {
    try {
      return (await this.fs.readdir(path)).sort();
    } catch (error) {
      if (isNotFound(error) || (error as { code?: unknown }).code === 'ENOTDIR') return [];
      throw error;
    }
  }

  /**
   * Writes a temp file with `write`, which answers the key of what it wrote, then puts it in place (or drops
   * it, when the same bytes are already there).
   */
  private async writeThenPlace(write: (handle: fsp.FileHandle) => Promise<string>): Promise<string> {
    await this.fs.mkdir(this.tmpDir, { recursive: true });
    const temp = join(this.tmpDir, `${randomBytes(16).toString('hex')}`);
    let renamed = false;
    try {
      const handle = await this.fs.open(temp, 'wx', 0o644);
      let hash: string;
      try {
        hash = await write(handle);
        await handle.sync();
      } finally {
        await handle.close();
      }
      const target = this.pathOf(hash);
      if (await this.exists(target)) return hash;
      const targetDir = dirname(target);
      const created = await this.fs.mkdir(targetDir, { recursive: true });
      // Concurrent puts of the same bytes each rename a complete copy over the other: same content, no harm.
      await this.fs.rename(temp, target);
      renamed = true;
      await this.syncDirectory(targetDir);
      // New fan-out directories are entries of their parents, which must reach the disk too.
      if (created !== undefined) {
        await this.syncDirectory(dirname(targetDir));
        await this.syncDirectory(this.dir);
      }
      return hash;
    } finally {
      if (!renamed) await this.fs.unlink(temp).catch(() => undefined);
    }
  }

  async get(hash: string): Promise<StoredBlob | undefined> {
    if (!isBlobHash(hash)) return undefined;
    let handle: fsp.FileHandle;
    try {
      handle = await this.fs.open(this.pathOf(hash), 'r');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    try {
      // Size and stream from one open file, so they describe the same bytes.
      const { size } = await handle.stat();
      return { size, stream: handle.createReadStream({ autoClose: true }) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async has(hash: string): Promise<boolean> {
    if (!isBlobHash(hash)) return false;
    return this.exists(this.pathOf(hash));
  }

  /**
   * Deletes temp files older than `olderThanMs`: what a crash between open and rename leaves behind. They
   * are never visible as blobs; this only reclaims their space. Returns how many were removed.
   */
  removeStaleUploads(olderThanMs = STALE_UPLOAD_MS, now = Date.now()): Promise<number> {
    return this.removeStaleTempFiles(olderThanMs, now);
  }

  async removeStaleTempFiles(olderThanMs = STALE_UPLOAD_MS, now = Date.now()): Promise<number> {
    let names: string[];
    try {
      names = await this.fs.readdir(this.tmpDir);
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(this.tmpDir, name);
      try {
        const { mtimeMs } = await this.fs.stat(path);
        if (now - mtimeMs < olderThanMs) continue;
        await this.fs.unlink(path);
        removed++;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    return removed;
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await this.fs.access(path);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  private async syncDirectory(path: string): Promise<void> {
    let handle: fsp.FileHandle | undefined;
    try {
      handle = await this.fs.open(path, 'r');
      await handle.sync();
    } catch (error) {
      // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
      if (!(typeof error === 'object' && error !== null && ['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes(String((error as { code?: unknown }).code)))) {
        throw error;
      }
    } finally {
      await handle?.close();
    }
  }
}
