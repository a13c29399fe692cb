import { Readable } from 'node:stream';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import {
  abandonBlobUpload,
  beginBlobUpload,
  findBlob,
  findBlobChunk,
  finishBlobUpload,
  insertBlobChunk,
  listStaleBlobUploads,
} from '../stores/blob-chunk-store.js';
import { isBlobHash, STALE_UPLOAD_MS, type BlobStore, type PutResult, type StoredBlob } from './blob-storage.js';
import { BlobHasher, hashedPieces } from './blob-streams.js';

/*
 * File bytes in the database (the default on PostgreSQL), so every process of a deployment reads what another
 * wrote with nothing to share but the database. A file is a numbered set of chunks of at most CHUNK_SIZE
 * bytes, written one row per statement (never inside a long transaction, never the whole file as one value)
 * and read back one row at a time as the reader consumes them; see migration 0270 for the tables.
 */

/** 1 MiB: large enough that a 1 GB file is a thousand rows, small enough that one row is cheap to hold. */
export const CHUNK_SIZE = 1024 * 1024;

export interface DatabaseBlobStorageOptions {
  /** Bytes per chunk row; tests pass small ones to exercise many chunks with small files. */
  chunkSize?: number;
}

export class DatabaseBlobStorage implements BlobStore {
  readonly description = 'database';
  private readonly chunkSize: number;

  constructor(private readonly db: Db, options: DatabaseBlobStorageOptions = {}) {
    this.chunkSize = options.chunkSize ?? CHUNK_SIZE;
  }

  put(bytes: Uint8Array): Promise<PutResult> {
    return this.putStream([bytes], bytes.byteLength);
  }

  async putStream(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, size: number): Promise<PutResult> {
    const hasher = new BlobHasher(size);
    const chunkSet = newId(24);
    await beginBlobUpload(this.db, chunkSet, new Date().toISOString());
    let hash: string;
    try {
      let seq = 0;
      for await (const piece of hashedPieces(toAsync(source), this.chunkSize, hasher)) {
        await insertBlobChunk(this.db, chunkSet, seq++, piece);
      }
      hash = hasher.digest();
    } catch (error) {
      await abandonBlobUpload(this.db, chunkSet).catch(() => undefined);
      throw error;
    }
    // Two uploads of the same bytes both finish; the second drops its chunks (finishBlobUpload).
    await finishBlobUpload(this.db, chunkSet, hash, size, new Date().toISOString());
    return { hash, size };
  }

  async get(hash: string): Promise<StoredBlob | undefined> {
    if (!isBlobHash(hash)) return undefined;
    const blob = await findBlob(this.db, hash);
    if (!blob) return undefined;
    const { db } = this;
    async function* chunks(): AsyncGenerator<Buffer> {
      let read = 0;
      for (let seq = 0; read < blob!.size; seq++) {
        const data = await findBlobChunk(db, blob!.chunkSet, seq);
        if (!data || data.byteLength === 0) throw new Error(`chunk ${seq} of file ${hash} is missing`);
        read += data.byteLength;
        yield Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      }
    }
    // highWaterMark 1: one chunk read ahead at most, so a slow client never makes the file pile up here.
    return { size: blob.size, stream: Readable.from(chunks(), { objectMode: false, highWaterMark: 1 }) };
  }

  async has(hash: string): Promise<boolean> {
    return isBlobHash(hash) && (await findBlob(this.db, hash)) !== undefined;
  }

  async removeStaleUploads(olderThanMs = STALE_UPLOAD_MS, now = Date.now()): Promise<number> {
    const stale = await listStaleBlobUploads(this.db, new Date(now - olderThanMs).toISOString());
    for (const chunkSet of stale) await abandonBlobUpload(this.db, chunkSet);
    return stale.length;
  }
}

async function* toAsync(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* source;
}
