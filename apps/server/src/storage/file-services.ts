import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { nowIso } from '../ids.js';
import { SqlObjectReader } from '../stores/content-object-store.js';
import { findServerSecret, insertServerSecretIfAbsent } from '../stores/server-secret-store.js';
import { LocalDiskBlobStorage, withFallback, type BlobStorage, type BlobStore } from './blob-storage.js';
import { DatabaseBlobStorage } from './database-blob-storage.js';
import { createUrlSigner, resolveUrlSecret, type SecretStore, type UrlSigner } from './signed-urls.js';

/*
 * The blob storage and URL signer of a process (server or worker), built once at start from the config.
 * The signer's key is QUIRE_URL_SECRET, or one kept in `server_secrets` so that every node signs alike.
 */

const URL_SECRET_NAME = 'download-url-hmac';

function databaseSecretStore(db: Db): SecretStore {
  return async (candidate) => {
    const existing = await findServerSecret(db, URL_SECRET_NAME);
    if (existing) return existing;
    await insertServerSecretIfAbsent(db, URL_SECRET_NAME, candidate, nowIso());
    const stored = await findServerSecret(db, URL_SECRET_NAME);
    if (!stored) throw new Error('the download URL secret could not be stored');
    return stored;
  };
}

export interface FileServices {
  blobStorage: BlobStorage;
  /** The configured store itself, without the fallback: what the sweep and the move command work on. */
  blobStore: BlobStore;
  urlSigner: UrlSigner;
}

/** The store QUIRE_BLOB_STORE names (see config.ts for the defaults per database). */
export async function createBlobStore(config: Pick<Config, 'blobDir' | 'blobStore'>, db: Db): Promise<BlobStore> {
  switch (config.blobStore.kind) {
    case 'disk': return new LocalDiskBlobStorage({ dir: config.blobDir });
    case 'database': return new DatabaseBlobStorage(db);
    case 's3': {
      // The AWS SDK is large: loaded only by installs that use it, so it costs the others no start-up time.
      const { S3Client } = await import('@aws-sdk/client-s3');
      const { s3ClientConfig, S3BlobStorage } = await import('./s3-blob-storage.js');
      return new S3BlobStorage(new S3Client(s3ClientConfig()), config.blobStore);
    }
  }
}

export async function createFileServices(config: Pick<Config, 'blobDir' | 'blobStore' | 'publicUrl' | 'urlSecret'>, db: Db): Promise<FileServices> {
  const reader = new SqlObjectReader(db);
  const blobStore = await createBlobStore(config, db);
  // Blobs written before they moved out of content_objects (or markdown) still live there: read both.
  const blobStorage = withFallback(blobStore, (hash) => reader.getBlob(hash));
  const secret = await resolveUrlSecret(config.urlSecret, databaseSecretStore(db));
  return { blobStorage, blobStore, urlSigner: createUrlSigner({ secret, publicUrl: config.publicUrl }) };
}
