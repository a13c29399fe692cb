import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { migrateToLatest } from '#server/db/migrate.js';
import { LocalDiskBlobStorage, type BlobStore } from '#server/storage/blob-storage.js';
import { DatabaseBlobStorage } from '#server/storage/database-blob-storage.js';
import { s3ClientConfig, S3BlobStorage } from '#server/storage/s3-blob-storage.js';
import { openBenchDatabase } from './bench-database.js';
import { positiveIntegerOption, printReport, runIfScript, stringOption } from './report.js';
import { LOOPBACK_BUCKET, LOOPBACK_CREDENTIALS, startLoopbackS3Server } from './s3-loopback.js';

/*
 * Upload and download throughput of each file store: the disk, the database (SQLite; PostgreSQL too with
 * --database-url postgres://...) and S3 over HTTP against s3rver on loopback (a development server: its
 * figures bound the store's client side from below, not what a real S3 answers). Each store takes one large
 * file streamed in (putStream, as move-files and large uploads do) and read back as a stream, and 200 small
 * files put at once (as API uploads and PDFs are) and read back.
 * Standalone: `node bench-dist/files-bench.js [--megabytes 64] [--database-url url] [--json]`.
 */

export interface StoreMeasure {
  store: string;
  largeMegabytes: number;
  largeUploadMBps: number;
  largeDownloadMBps: number;
  smallFiles: number;
  smallFileKilobytes: number;
  smallUploadsPerSecond: number;
  smallDownloadsPerSecond: number;
}

export interface FilesBenchReport {
  measures: StoreMeasure[];
}

const SMALL_FILES = 200;
const SMALL_SIZE = 100 * 1024;

async function* generated(size: number): AsyncGenerator<Uint8Array> {
  const seed = randomBytes(64 * 1024);
  for (let offset = 0; offset < size; offset += seed.byteLength) {
    const piece = Buffer.from(seed);
    piece.writeUInt32BE(offset / seed.byteLength, 0);
    yield piece.subarray(0, Math.min(seed.byteLength, size - offset));
  }
}

async function drain(store: BlobStore, hash: string): Promise<number> {
  const blob = await store.get(hash);
  if (!blob) throw new Error(`${store.description} lost ${hash}`);
  let read = 0;
  for await (const chunk of blob.stream) read += (chunk as Buffer).byteLength;
  return read;
}

const seconds = (started: number) => (performance.now() - started) / 1000;

async function measureStore(label: string, store: BlobStore, megabytes: number): Promise<StoreMeasure> {
  const size = megabytes * 1024 * 1024;
  let started = performance.now();
  const { hash } = await store.putStream(generated(size), size);
  const uploadSeconds = seconds(started);
  started = performance.now();
  if ((await drain(store, hash)) !== size) throw new Error(`${label} read back a different size`);
  const downloadSeconds = seconds(started);

  const small = Array.from({ length: SMALL_FILES }, () => randomBytes(SMALL_SIZE));
  started = performance.now();
  const hashes: string[] = [];
  for (const bytes of small) hashes.push((await store.put(bytes)).hash);
  const smallUpload = seconds(started);
  started = performance.now();
  for (const smallHash of hashes) await drain(store, smallHash);
  const smallDownload = seconds(started);

  return {
    store: label,
    largeMegabytes: megabytes,
    largeUploadMBps: Math.round(megabytes / uploadSeconds),
    largeDownloadMBps: Math.round(megabytes / downloadSeconds),
    smallFiles: SMALL_FILES,
    smallFileKilobytes: SMALL_SIZE / 1024,
    smallUploadsPerSecond: Math.round(SMALL_FILES / smallUpload),
    smallDownloadsPerSecond: Math.round(SMALL_FILES / smallDownload),
  };
}

export async function runFilesBench(options: { megabytes?: number; databaseUrl?: string; log?: (line: string) => void } = {}): Promise<FilesBenchReport> {
  const log = options.log ?? (() => {});
  const megabytes = options.megabytes ?? 64;
  const measures: StoreMeasure[] = [];

  const dir = mkdtempSync(join(tmpdir(), 'quire-files-bench-'));
  try {
    log('files bench: disk...');
    measures.push(await measureStore('disk', new LocalDiskBlobStorage({ dir }), megabytes));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const urls: Array<string | undefined> = [undefined, ...(options.databaseUrl ? [options.databaseUrl] : [])];
  for (const url of urls) {
    const database = await openBenchDatabase('files', url);
    try {
      await migrateToLatest(database.handle);
      log(`files bench: database (${database.handle.dialect})...`);
      measures.push(await measureStore(`database (${database.handle.dialect})`, new DatabaseBlobStorage(database.handle.db), megabytes));
    } finally {
      await database.cleanup();
    }
  }

  const s3 = await startLoopbackS3Server();
  try {
    log('files bench: S3 (s3rver on loopback)...');
    const client = new S3Client({ ...s3ClientConfig({ AWS_ENDPOINT_URL: s3.endpoint }), endpoint: s3.endpoint, credentials: LOOPBACK_CREDENTIALS });
    measures.push(await measureStore('S3 (s3rver, loopback)', new S3BlobStorage(client, { bucket: LOOPBACK_BUCKET, prefix: 'bench' }), megabytes));
    client.destroy();
  } finally {
    await s3.stop();
  }
  return { measures };
}

export function formatFilesBenchReport(report: FilesBenchReport): string {
  return [
    'files: upload and download throughput of each file store (one large file streamed; small files one at a time)',
    ...report.measures.map((m) => `${m.store.padEnd(24)} ${m.largeMegabytes} MB file: up ${m.largeUploadMBps} MB/s, down ${m.largeDownloadMBps} MB/s; `
      + `${m.smallFiles} files of ${m.smallFileKilobytes} KB: up ${m.smallUploadsPerSecond}/s, down ${m.smallDownloadsPerSecond}/s`),
  ].join('\n');
}

runIfScript(import.meta.url, 'files-bench', async () => {
  const megabytes = positiveIntegerOption('megabytes');
  const databaseUrl = stringOption('database-url');
  const report = await runFilesBench({
    ...(megabytes ? { megabytes } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  printReport(report, formatFilesBenchReport);
});
