import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { nowIso } from '../ids.js';
import { SqlObjectReader } from '../stores/content-object-store.js';
import { findServerSecret, insertServerSecretIfAbsent } from '../stores/server-secret-store.js';
import { LocalDiskBlobStorage, withFallback, type BlobStorage } from './blob-storage.js';
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
  urlSigner: UrlSigner;
}

export async function createFileServices(config: Pick<Config, 'blobDir' | 'publicUrl' | 'urlSecret'>, db: Db): Promise<FileServices> {
  const reader = new SqlObjectReader(db);
  // Blobs written before they moved to disk (or markdown) still live in content_objects: read both.
  const blobStorage = withFallback(new LocalDiskBlobStorage({ dir: config.blobDir }), (hash) => reader.getBlob(hash));
  const secret = await resolveUrlSecret(config.urlSecret, databaseSecretStore(db));
  return { blobStorage, urlSigner: createUrlSigner({ secret, publicUrl: config.publicUrl }) };
}
