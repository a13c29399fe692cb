import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { parseBlobStore } from '../src/config.js';
import { blobKey, LocalDiskBlobStorage, type BlobStore } from '../src/storage/blob-storage.js';
import { BlobSizeMismatchError } from '../src/storage/blob-streams.js';
import { DatabaseBlobStorage } from '../src/storage/database-blob-storage.js';
import { createBlobStore } from '../src/storage/file-services.js';
import { s3ClientConfig, S3BlobStorage } from '../src/storage/s3-blob-storage.js';
import { beginBlobUpload, insertBlobChunk } from '../src/stores/blob-chunk-store.js';
import { describeEachDialect, useTestDatabase } from './dialects.js';
import { LOOPBACK_BUCKET as TEST_BUCKET, LOOPBACK_CREDENTIALS as TEST_CREDENTIALS, startLoopbackS3Server } from '../bench/s3-loopback.js';
import { useForSuite } from './suite-resource.js';

/*
 * One suite for every file store (disk, database on each dialect, S3 over HTTP against s3rver on loopback):
 * what callers rely on whichever store the configuration picks.
 */

interface StoreUnderTest {
  store: BlobStore;
  /** Leaves what a crash in the middle of a write started at `startedAt` (ms) leaves in this store. */
  leaveCrashedUpload(startedAt: number): Promise<void>;
}

async function* pieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
}

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// A full collection before each measure, so that what is measured is what the store holds, not the garbage
// it made on the way (node-postgres, for one, reads a bytea as a hex string twice its size and drops it).
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Heap and buffers still referenced: what a file held in memory would add to. */
function memoryInUse(): number {
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Measures memoryInUse every 8 MiB of bytes seen, and keeps the highest. */
function memoryWatch(): { seen(bytes: number): void; peak(): number } {
  let peak = memoryInUse();
  let sinceLast = 0;
  return {
    seen(bytes) {
      sinceLast += bytes;
      if (sinceLast < 8 * 1024 * 1024) return;
      sinceLast = 0;
      peak = Math.max(peak, memoryInUse());
    },
    peak: () => peak,
  };
}

const LARGE_SIZE = 72 * 1024 * 1024;

/** LARGE_SIZE bytes made as they are read (64 KiB at a time, each piece different); never held whole. */
function largeSource(onPiece: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  const seed = randomBytes(64 * 1024);
  return (async function* generate() {
    for (let offset = 0; offset < LARGE_SIZE; offset += seed.byteLength) {
      const piece = Buffer.from(seed);
      piece.writeUInt32BE(offset / seed.byteLength, 0);
      onPiece(seed.byteLength);
      yield piece.subarray(0, Math.min(seed.byteLength, LARGE_SIZE - offset));
    }
  })();
}

function blobStoreSuite(setUp: () => StoreUnderTest): void {
  it('stores bytes under their content key and reads them back with their size, empty files too', async () => {
    const { store } = setUp();
    const bytes = randomBytes(300_000);
    const hash = blobKey(bytes);
    expect(await store.has(hash)).toBe(false);
    expect(await store.put(bytes)).toEqual({ hash, size: bytes.byteLength });
    expect(await store.has(hash)).toBe(true);
    const stored = await store.get(hash);
    expect(stored?.size).toBe(bytes.byteLength);
    expect((await readAll(stored!.stream)).equals(bytes)).toBe(true);

    const empty = new Uint8Array(0);
    expect(await store.put(empty)).toEqual({ hash: blobKey(empty), size: 0 });
    const emptyStored = await store.get(blobKey(empty));
    expect(emptyStored?.size).toBe(0);
    expect((await readAll(emptyStored!.stream)).byteLength).toBe(0);
  });

  it('answers nothing for a missing key or a malformed one', async () => {
    const { store } = setUp();
    const missing = blobKey(randomBytes(16));
    expect(await store.get(missing)).toBeUndefined();
    expect(await store.has(missing)).toBe(false);
    for (const bad of ['../../etc/passwd', 'ABC', missing.toUpperCase(), `${missing}0`, '']) {
      expect(await store.get(bad), bad).toBeUndefined();
      expect(await store.has(bad), bad).toBe(false);
    }
  });

  it('stores a stream under the same key as the same bytes put at once, whatever the pieces', async () => {
    const { store } = setUp();
    const bytes = randomBytes(2_500_000);
    expect(await store.putStream(pieces(bytes, 7_777), bytes.byteLength)).toEqual({ hash: blobKey(bytes), size: bytes.byteLength });
    expect((await readAll((await store.get(blobKey(bytes)))!.stream)).equals(bytes)).toBe(true);
    // Again, now already stored: the same answer, nothing new.
    expect(await store.putStream(pieces(bytes, 1 << 20), bytes.byteLength)).toEqual({ hash: blobKey(bytes), size: bytes.byteLength });
    expect(await store.removeStaleUploads(0)).toBe(0);
  });

  it('refuses a stream of another length than declared and keeps nothing of it', async () => {
    const { store } = setUp();
    const bytes = randomBytes(100_000);
    await expect(store.putStream(pieces(bytes, 10_000), bytes.byteLength + 1)).rejects.toBeInstanceOf(BlobSizeMismatchError);
    await expect(store.putStream(pieces(bytes, 10_000), bytes.byteLength - 1)).rejects.toBeInstanceOf(BlobSizeMismatchError);
    const broken = (async function* () {
      yield bytes.subarray(0, 50_000);
      throw new Error('the client hung up');
    })();
    await expect(store.putStream(broken, bytes.byteLength)).rejects.toThrow('the client hung up');
    expect(await store.has(blobKey(bytes))).toBe(false);
    // Nothing half-written is left for a sweep to find either.
    expect(await store.removeStaleUploads(0)).toBe(0);
  });

  it('agrees on one stored copy when the same content is written concurrently', async () => {
    const { store } = setUp();
    const bytes = randomBytes(1_500_000);
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => store.putStream(pieces(bytes, 100_000), bytes.byteLength)),
      ...Array.from({ length: 4 }, () => store.put(bytes)),
    ]);
    for (const result of results) expect(result).toEqual({ hash: blobKey(bytes), size: bytes.byteLength });
    expect((await readAll((await store.get(blobKey(bytes)))!.stream)).equals(bytes)).toBe(true);
    expect(await store.removeStaleUploads(0)).toBe(0);
  });

  it('sweeps what a crashed write left once it is old, keeps a recent one and every stored file', async () => {
    const under = setUp();
    const kept = randomBytes(10_000);
    await under.store.put(kept);
    const now = Date.now();
    await under.leaveCrashedUpload(now - 2 * 60 * 60 * 1000);
    await under.leaveCrashedUpload(now - 60 * 1000);
    expect(await under.store.removeStaleUploads(60 * 60 * 1000, now)).toBe(1);
    expect(await under.store.removeStaleUploads(60 * 60 * 1000, now)).toBe(0);
    // The recent one may be a slow upload under way; at zero age it goes too.
    expect(await under.store.removeStaleUploads(0, now)).toBe(1);
    expect((await readAll((await under.store.get(blobKey(kept)))!.stream)).equals(kept)).toBe(true);
  });

  it(`writes and reads back a ${LARGE_SIZE / 1024 / 1024} MB file as a stream without holding it in memory`, async () => {
    const { store } = setUp();
    const baseline = memoryInUse();
    const writing = memoryWatch();
    const expected = createHash('sha256');
    const source = largeSource((bytes) => writing.seen(bytes));
    const hashing = (async function* () {
      for await (const piece of source) {
        expected.update(piece);
        yield piece;
      }
    })();
    const { hash, size } = await store.putStream(hashing, LARGE_SIZE);
    expect(size).toBe(LARGE_SIZE);
    const writePeak = writing.peak() - baseline;

    const readBaseline = memoryInUse();
    const reading = memoryWatch();
    const stored = await store.get(hash);
    expect(stored?.size).toBe(LARGE_SIZE);
    const actual = createHash('sha256');
    let read = 0;
    for await (const chunk of stored!.stream) {
      actual.update(chunk as Buffer);
      read += (chunk as Buffer).byteLength;
      reading.seen((chunk as Buffer).byteLength);
    }
    const readPeak = reading.peak() - readBaseline;
    expect(read).toBe(LARGE_SIZE);
    expect(actual.digest('hex')).toBe(expected.digest('hex'));
    console.log(`${store.description}: ${LARGE_SIZE / 1024 / 1024} MB file, memory grew by at most ${(writePeak / 1024 / 1024).toFixed(1)} MB writing and ${(readPeak / 1024 / 1024).toFixed(1)} MB reading`);
    // A store's buffers (a chunk, S3's parts in flight) are a few MB; holding the file would be all of it.
    expect(writePeak).toBeLessThan(LARGE_SIZE / 2);
    expect(readPeak).toBeLessThan(LARGE_SIZE / 2);
  }, 180_000);
}

describe('LocalDiskBlobStorage (the file store suite)', () => {
  const disk = useForSuite('blob folder', async () => ({ dir: mkdtempSync(join(tmpdir(), 'quire-blob-suite-')) }), async ({ dir }) => rmSync(dir, { recursive: true, force: true }));
  blobStoreSuite(() => ({
    store: new LocalDiskBlobStorage({ dir: disk.dir }),
    async leaveCrashedUpload(startedAt) {
      mkdirSync(join(disk.dir, 'tmp'), { recursive: true });
      const path = join(disk.dir, 'tmp', randomBytes(8).toString('hex'));
      writeFileSync(path, randomBytes(1000));
      utimesSync(path, startedAt / 1000, startedAt / 1000);
    },
  }));
});

describeEachDialect('DatabaseBlobStorage (the file store suite)', (dialect) => {
  const database = useTestDatabase(dialect);
  blobStoreSuite(() => ({
    store: new DatabaseBlobStorage(database.db),
    async leaveCrashedUpload(startedAt) {
      const id = randomBytes(12).toString('hex');
      await beginBlobUpload(database.db, id, new Date(startedAt).toISOString());
      await insertBlobChunk(database.db, id, 0, randomBytes(1000));
    },
  }));

  it('keeps one set of chunks per file: the losers of concurrent writes drop theirs', async () => {
    const store = new DatabaseBlobStorage(database.db, { chunkSize: 64 * 1024 });
    const bytes = randomBytes(1_000_000);
    await Promise.all(Array.from({ length: 6 }, () => store.putStream(pieces(bytes, 50_000), bytes.byteLength)));
    const file = await database.db.selectFrom('blobs').select('chunk_set').where('hash', '=', blobKey(bytes)).executeTakeFirstOrThrow();
    const chunks = await database.db.selectFrom('blob_chunks').select(['chunk_set', 'seq']).where('chunk_set', '=', file.chunk_set).execute();
    expect(chunks).toHaveLength(Math.ceil(bytes.byteLength / (64 * 1024)));
    const orphans = await database.db.selectFrom('blob_chunks').select('chunk_set')
      .where('chunk_set', 'not in', database.db.selectFrom('blobs').select('chunk_set'))
      .where('chunk_set', 'not in', database.db.selectFrom('blob_uploads').select('id'))
      .execute();
    expect(orphans).toEqual([]);
  });
});

describe('S3BlobStorage over HTTP (the file store suite)', () => {
  const server = useForSuite('S3-compatible server', startLoopbackS3Server, (started) => started.stop());
  const client = () => new S3Client({ ...s3ClientConfig({ AWS_ENDPOINT_URL: server.endpoint }), endpoint: server.endpoint, credentials: TEST_CREDENTIALS });
  blobStoreSuite(() => {
    const s3 = client();
    const store = new S3BlobStorage(s3, { bucket: TEST_BUCKET, prefix: 'suite/files' });
    return {
      store,
      async leaveCrashedUpload(startedAt) {
        await s3.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: `suite/files/tmp/${startedAt}-${randomBytes(8).toString('hex')}`, Body: randomBytes(1000) }));
      },
    };
  });

  it('keeps files under the prefix at <prefix>/ab/<hash>, and no temporary object after a streamed write', async () => {
    const s3 = client();
    const store = new S3BlobStorage(s3, { bucket: TEST_BUCKET, prefix: 'layout' });
    const bytes = randomBytes(20_000);
    await store.putStream(pieces(bytes, 4096), bytes.byteLength);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: TEST_BUCKET, Prefix: 'layout/' }));
    expect((listed.Contents ?? []).map((object) => object.Key)).toEqual([`layout/${blobKey(bytes).slice(0, 2)}/${blobKey(bytes)}`]);
    await s3.send(new DeleteObjectCommand({ Bucket: TEST_BUCKET, Key: store.keyOf(blobKey(bytes)) }));
    expect(await store.has(blobKey(bytes))).toBe(false);
  });

  it('is what QUIRE_BLOB_STORE=s3://bucket/prefix makes, reaching the server through the usual AWS variables', async () => {
    const names = ['AWS_ENDPOINT_URL', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION'] as const;
    const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: server.endpoint,
      AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
      AWS_REGION: 'eu-west-1',
    });
    try {
      const blobStore = parseBlobStore(`s3://${TEST_BUCKET}/from-env/`, { dialect: 'sqlite', file: ':memory:' });
      expect(blobStore).toEqual({ kind: 's3', bucket: TEST_BUCKET, prefix: 'from-env' });
      const store = await createBlobStore({ blobDir: './unused', blobStore }, undefined as never);
      expect(store.description).toBe(`s3://${TEST_BUCKET}/from-env`);
      const bytes = randomBytes(5000);
      const { hash } = await store.put(bytes);
      expect((await readAll((await store.get(hash))!.stream)).equals(bytes)).toBe(true);
    } finally {
      for (const name of names) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

describe('QUIRE_BLOB_STORE', () => {
  it('defaults to the database on PostgreSQL and to the disk on SQLite, and refuses anything else', () => {
    expect(parseBlobStore(undefined, { dialect: 'postgres', connectionString: 'postgres://x/y' })).toEqual({ kind: 'database' });
    expect(parseBlobStore('', { dialect: 'sqlite', file: 'x.db' })).toEqual({ kind: 'disk' });
    expect(parseBlobStore('disk', { dialect: 'postgres', connectionString: 'postgres://x/y' })).toEqual({ kind: 'disk' });
    expect(parseBlobStore('database', { dialect: 'sqlite', file: 'x.db' })).toEqual({ kind: 'database' });
    expect(parseBlobStore('s3://bucket', { dialect: 'sqlite', file: 'x.db' })).toEqual({ kind: 's3', bucket: 'bucket', prefix: '' });
    for (const bad of ['s3://', 'S3://Bucket/x', 'gs://bucket', 'memory']) expect(() => parseBlobStore(bad, { dialect: 'sqlite', file: 'x.db' }), bad).toThrow('QUIRE_BLOB_STORE');
  });
});

