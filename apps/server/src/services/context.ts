import type { Db, DialectName } from '../db/index.js';
import type { Logger } from '../logger.js';
import type { BlobStorage } from '../storage/blob-storage.js';
import type { UrlSigner } from '../storage/signed-urls.js';

/** What every service needs; one instance per process. */
export interface ServiceContext {
  db: Db;
  dialect: DialectName;
  logger: Logger;
  /** QUIRE_JWT_SECRET when set; see `Config.jwtSecret`. */
  jwtSecret?: string;
  /** QUIRE_ALLOW_LOCAL_URLS: what `guardedFetch`/`checkOutboundUrl` get as `allowLocal`. */
  allowLocalUrls?: boolean;
  /**
   * File bytes and rendered PDFs (falling back to blobs kept in `content_objects`, so bytes on either side
   * can be read and downloaded). Set by `server.ts` and `worker.ts`; absent in contexts that never touch files.
   */
  blobStorage?: BlobStorage;
  /** Signs `/downloads/...` URLs for `blobStorage`'s bytes (file `downloadURL`, PDFs). Set with `blobStorage`. */
  urlSigner?: UrlSigner;
}
