import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import { dirname } from 'node:path';
import { detectContentType } from '../content/files.js';
import { isBlobHash } from './blob-storage.js';

/*
 * Download URLs carry their own authorization: `<publicUrl>/downloads/<hash>/<filename>?expires=<unix>&sig=<hex>`
 * where sig = HMAC-SHA256(secret, hash, filename, content type, expiry). Anyone holding the URL may fetch
 * those bytes, under that name and type, until it expires; changing any of them breaks the signature. The
 * content type is only spelled out in the URL (`type=`) when it is not the one the filename's extension
 * implies, which keeps the common URL short and in the documented shape.
 */

/** The shortest secret accepted: 32 bytes, as for API tokens. */
export const MIN_SECRET_BYTES = 32;
const SIGNATURE_VERSION = 'quire-download-v1';
const MAX_FILENAME_LENGTH = 255;
const SIGNATURE = /^[0-9a-f]{64}$/;
const EXPIRES = /^\d{1,12}$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;\s*[a-z0-9_.+-]{1,64}=("[^"\\\x00-\x1f\x7f]{0,128}"|[a-z0-9!#$&^_.+-]{1,128}))*$/i;

export interface UrlSignerOptions {
  /** At least 32 bytes (a string counts its UTF-8 bytes). */
  secret: string | Uint8Array;
  /** Base of the URLs, e.g. https://docs.example.com (a trailing slash is ignored). */
  publicUrl: string;
  /** Lifetime of a URL when `sign` is not told one. Default one hour. */
  defaultTtlSeconds?: number;
  /**
   * Expiry times are rounded up to a multiple of this, so that the same file asked for several times in a
   * short while gets the same URL (and browsers can reuse what they downloaded). Default 300 seconds; a URL
   * lives between its TTL and its TTL plus this.
   */
  expiryGranularitySeconds?: number;
  /** The clock, in milliseconds; tests pass a fixed one. */
  now?: () => number;
}

export interface SignRequest {
  hash: string;
  filename: string;
  contentType: string;
  /** Lifetime from now; the signer's default when absent. Ignored when `expiresAt` is given. */
  ttlSeconds?: number;
  /** Exact expiry (no rounding). */
  expiresAt?: Date;
}

/** What the download route read from the URL, all as strings, unchecked. */
export interface DownloadParams {
  hash: string;
  filename: string;
  expires: unknown;
  sig: unknown;
  type?: unknown;
}

export type Verification =
  | { ok: true; hash: string; filename: string; contentType: string; expires: number }
  | { ok: false; reason: 'malformed' | 'invalid' | 'expired' };

export interface UrlSigner {
  /** The full signed URL. */
  sign(request: SignRequest): string;
  /** Checks a URL's parts; constant-time in the signature. */
  verify(params: DownloadParams): Verification;
}

/** A fresh random secret (64 hex characters) for `QUIRE_URL_SECRET` or for persisting. */
export function generateUrlSecret(): string {
  return randomBytes(32).toString('hex');
}

function secretBytes(secret: string | Uint8Array): Buffer {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (bytes.byteLength < MIN_SECRET_BYTES) throw new RangeError(`the URL signing secret must be at least ${MIN_SECRET_BYTES} bytes`);
  return bytes;
}

/**
 * The filename as it appears in the URL and the signature: no control characters, no path separators, at
 * most 255 characters, never empty.
 */
export function safeFilename(name: string): string {
  const cleaned = name.replace(/[\x00-\x1f\x7f]/g, '').replace(/[/\\]/g, '_').trim();
  const shortened = [...cleaned].slice(0, MAX_FILENAME_LENGTH).join('');
  return shortened === '' || shortened === '.' || shortened === '..' ? 'download' : shortened;
}

/** The media type, or `application/octet-stream` when it is not a well-formed one (it ends up in a header). */
export function safeContentType(contentType: string): string {
  const trimmed = contentType.trim();
  if (!MEDIA_TYPE.test(trimmed)) return 'application/octet-stream';
  const [essence, ...parameters] = trimmed.split(';');
  return [essence!.toLowerCase(), ...parameters.map((parameter) => parameter.trim())].join('; ');
}

/** The type a filename's extension implies (`application/octet-stream` when it implies none). */
export function contentTypeForFilename(filename: string): string {
  return detectContentType(filename, new Uint8Array(0));
}

export function createUrlSigner(options: UrlSignerOptions): UrlSigner {
  const key = secretBytes(options.secret);
  const base = options.publicUrl.replace(/\/+$/, '');
  const defaultTtl = options.defaultTtlSeconds ?? 3600;
  const granularity = Math.max(1, Math.floor(options.expiryGranularitySeconds ?? 300));
  const now = options.now ?? Date.now;

  const mac = (hash: string, filename: string, contentType: string, expires: number): Buffer =>
    createHmac('sha256', key).update([SIGNATURE_VERSION, hash, filename, contentType, String(expires)].join('\n'), 'utf8').digest();

  return {
    sign(request) {
      if (!isBlobHash(request.hash)) throw new TypeError('not a blob hash');
      const filename = safeFilename(request.filename);
      const contentType = safeContentType(request.contentType);
      let expires: number;
      if (request.expiresAt) {
        expires = Math.ceil(request.expiresAt.getTime() / 1000);
      } else {
        const ttl = request.ttlSeconds ?? defaultTtl;
        if (!(ttl > 0)) throw new RangeError('ttlSeconds must be positive');
        expires = Math.ceil((now() / 1000 + ttl) / granularity) * granularity;
      }
      const query = new URLSearchParams();
      if (contentType !== contentTypeForFilename(filename)) query.set('type', contentType);
      query.set('expires', String(expires));
      query.set('sig', mac(request.hash, filename, contentType, expires).toString('hex'));
      return `${base}/downloads/${request.hash}/${encodeURIComponent(filename)}?${query.toString()}`;
    },

    verify(params) {
      const { hash, filename } = params;
      if (!isBlobHash(hash)) return { ok: false, reason: 'malformed' };
      if (typeof params.expires !== 'string' || !EXPIRES.test(params.expires)) return { ok: false, reason: 'malformed' };
      if (typeof params.sig !== 'string' || !SIGNATURE.test(params.sig)) return { ok: false, reason: 'malformed' };
      if (params.type !== undefined && typeof params.type !== 'string') return { ok: false, reason: 'malformed' };
      // A name the signer would have written differently was not written by it.
      if (safeFilename(filename) !== filename) return { ok: false, reason: 'invalid' };
      const contentType = params.type === undefined ? contentTypeForFilename(filename) : params.type;
      if (safeContentType(contentType) !== contentType) return { ok: false, reason: 'invalid' };
      const expires = Number(params.expires);
      const expected = mac(hash, filename, contentType, expires);
      if (!timingSafeEqual(expected, Buffer.from(params.sig, 'hex'))) return { ok: false, reason: 'invalid' };
      if (expires * 1000 <= now()) return { ok: false, reason: 'expired' };
      return { ok: true, hash, filename, contentType, expires };
    },
  };
}

/**
 * Keeps the first secret offered and answers the kept one ever after: for a database, "insert ... on
 * conflict do nothing" then select; for one machine, `secretFileStore(path)`.
 */
export type SecretStore = (candidate: string) => Promise<string>;

/**
 * The signing secret: `QUIRE_URL_SECRET` when set, else the one kept in `store` (a file path or a
 * SecretStore), created at random by whichever process gets there first. Every node of a deployment must
 * sign with the same secret, so nodes that share no disk set the variable or keep it in the database.
 */
export async function resolveUrlSecret(envSecret: string | undefined, store: string | SecretStore): Promise<string> {
  if (envSecret !== undefined && envSecret !== '') {
    secretBytes(envSecret);
    return envSecret;
  }
  const keep = typeof store === 'string' ? secretFileStore(store) : store;
  const secret = (await keep(generateUrlSecret())).trim();
  secretBytes(secret);
  return secret;
}

/** A SecretStore in a file (mode 0600), safe against processes starting together. */
export function secretFileStore(file: string): SecretStore {
  return async (candidate) => {
    await fsp.mkdir(dirname(file), { recursive: true });
    try {
      // Written to a temp file and linked into place: link fails if the file exists, so two processes
      // starting together agree on one secret, and no process ever reads a half-written one.
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      const handle = await fsp.open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(`${candidate}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await fsp.link(temp, file);
        return candidate;
      } finally {
        await fsp.unlink(temp).catch(() => undefined);
      }
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    }
    return fsp.readFile(file, 'utf8');
  };
}
