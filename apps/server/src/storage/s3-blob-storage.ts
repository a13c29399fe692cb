import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { blobKey, isBlobHash, STALE_UPLOAD_MS, type BlobStore, type PutResult, type StoredBlob } from './blob-storage.js';
import { BlobHasher } from './blob-streams.js';

/*
 * File bytes in an S3-compatible bucket (`QUIRE_BLOB_STORE=s3://bucket/prefix`), through the AWS SDK v3. The
 * endpoint, region and credentials come from the usual AWS variables (AWS_ENDPOINT_URL, AWS_REGION,
 * AWS_ACCESS_KEY_ID, ...), read by the SDK itself. A file is the object `<prefix>/ab/<hash>`. Bytes whose
 * key is known (`put`) go straight there; a stream's key is known only at its end, so it is uploaded to
 * `<prefix>/tmp/<random>` (multipart above PART_SIZE, so no more than a few parts are ever in memory), then
 * copied to its key and the temporary object deleted.
 */

/** Parts of a multipart upload: S3's smallest allowed part is 5 MiB; two are in flight at a time. */
export const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** The largest object a single CopyObject can copy. */
const MAX_COPY_SIZE = 5 * 1024 * 1024 * 1024;

/** The bucket and key prefix (no trailing slash; empty for the bucket's root) of QUIRE_BLOB_STORE. */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/**
 * The SDK's configuration for an S3-compatible server: path-style addressing when an endpoint is set (MinIO,
 * Ceph and most others serve buckets under the path, not as subdomains), and checksums only where S3
 * requires them, since the SDK's newer default (a checksum trailer on every upload) is refused by many
 * S3-compatible servers. The environment's AWS_REQUEST_CHECKSUM_CALCULATION still wins when set.
 */
export function s3ClientConfig(env: NodeJS.ProcessEnv = process.env): S3ClientConfig {
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL;
  return {
    ...(endpoint ? { forcePathStyle: true } : {}),
    ...(env.AWS_REGION || env.AWS_DEFAULT_REGION ? {} : { region: 'us-east-1' }),
    ...(env.AWS_REQUEST_CHECKSUM_CALCULATION ? {} : { requestChecksumCalculation: 'WHEN_REQUIRED' as const }),
    ...(env.AWS_RESPONSE_CHECKSUM_VALIDATION ? {} : { responseChecksumValidation: 'WHEN_REQUIRED' as const }),
  };
}

function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404;
}

export class S3BlobStorage implements BlobStore {
  readonly description: string;
  private readonly base: string;

  constructor(private readonly client: S3Client, private readonly location: S3Location) {
    this.description = `s3://${location.bucket}${location.prefix ? `/${location.prefix}` : ''}`;
    this.base = location.prefix ? `${location.prefix}/` : '';
  }

  /** The object key of a file. */
  keyOf(hash: string): string {
    return `${this.base}${hash.slice(0, 2)}/${hash}`;
  }

  private get tmpPrefix(): string {
    return `${this.base}tmp/`;
  }

  async put(bytes: Uint8Array): Promise<PutResult> {
    const hash = blobKey(bytes);
    if (!(await this.has(hash))) {
      await this.client.send(new PutObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(hash), Body: bytes, ContentLength: bytes.byteLength }));
    }
    return { hash, size: bytes.byteLength };
  }

  async putStream(source: AsyncIterable<Uint8Array>, size: number): Promise<PutResult> {
    const hasher = new BlobHasher(size);
    if (size > MAX_COPY_SIZE) throw new RangeError(`files of more than ${MAX_COPY_SIZE} bytes cannot be stored in S3 by this store`);
    async function* hashed(): AsyncGenerator<Uint8Array> {
      for await (const chunk of source) {
        hasher.update(chunk);
        yield chunk;
      }
    }
    // Random temp names: two uploads of the same bytes at once never write the same object.
    const temp = `${this.tmpPrefix}${Date.now()}-${randomBytes(12).toString('hex')}`;
    const bucket = this.location.bucket;
    try {
      const upload = new Upload({
        client: this.client,
        params: { Bucket: bucket, Key: temp, Body: Readable.from(hashed(), { objectMode: false }) },
        partSize: PART_SIZE,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      await upload.done();
      const hash = hasher.digest();
      if (!(await this.has(hash))) {
        await this.client.send(new CopyObjectCommand({ Bucket: bucket, Key: this.keyOf(hash), CopySource: `${bucket}/${encodeURI(temp)}` }));
      }
      return { hash, size };
    } finally {
      await this.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: temp })).catch(() => undefined);
    }
  }

  async get(hash: string): Promise<StoredBlob | undefined> {
    if (!isBlobHash(hash)) return undefined;
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(hash) }));
      if (!(answer.Body instanceof Readable)) throw new Error('the S3 client answered a body that is not a Node stream');
      return { size: Number(answer.ContentLength ?? 0), stream: answer.Body };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async has(hash: string): Promise<boolean> {
    if (!isBlobHash(hash)) return false;
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(hash) }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /**
   * Deletes temporary objects a crash between upload and copy left. Their names begin with their start time,
   * so one listing finds the old ones; the upload's own failure path aborts its incomplete multipart parts.
   */
  async removeStaleUploads(olderThanMs = STALE_UPLOAD_MS, now = Date.now()): Promise<number> {
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: this.tmpPrefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        const started = Number(object.Key?.slice(this.tmpPrefix.length).split('-')[0]);
        if (!object.Key || !Number.isFinite(started) || now - started < olderThanMs) continue;
        await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: object.Key }));
        removed++;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return removed;
  }
}
