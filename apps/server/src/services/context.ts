import type { OidcConfig } from '../config.js';
import type { Db, DialectName } from '../db/index.js';
import type { LimiterStore } from '../limits/limiter-store.js';
import type { Logger } from '../logger.js';
import type { Mailer } from '../net/mailer.js';
import type { BlobStorage } from '../storage/blob-storage.js';
import type { UrlSigner } from '../storage/signed-urls.js';

/** A browser session ends once unused for `idleMinutes`, and in any case `maxHours` after it was opened. */
export interface SessionSettings {
  idleMinutes: number;
  maxHours: number;
}

/** Failed sign-in attempts allowed in each window of `windowSeconds`, per account and per client address. */
export interface SignInLimits {
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
}

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
  /** How long browser sessions last (QUIRE_SESSION_IDLE_MINUTES, QUIRE_SESSION_MAX_HOURS); the defaults of `browser-session-service.ts` when unset. */
  sessions?: SessionSettings;
  /** Failed sign-ins allowed per account and per client address (QUIRE_SIGNIN_LIMIT_*); see `sign-in-throttle.ts`. */
  signInLimits?: SignInLimits;
  /** Where rate limits and failed sign-ins are counted (limits/limiter-store.ts); this process's memory when unset. */
  limiters?: LimiterStore;
  /** Signs `/downloads/...` URLs for `blobStorage`'s bytes (file `downloadURL`, PDFs). Set with `blobStorage`. */
  urlSigner?: UrlSigner;
  /** QUIRE_PUBLIC_URL: the base of the addresses put in mail (an invitation's join address). */
  publicUrl?: string;
  /** Outgoing mail when QUIRE_SMTP_URL is set; absent, nothing is mailed and invitations answer their join address. */
  mailer?: Mailer;
  /** The installation's OpenID Connect provider (QUIRE_OIDC_*), when configured. */
  oidc?: OidcConfig;
}
