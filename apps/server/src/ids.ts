import { hash, randomBytes, randomFillSync, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/*
 * Random bytes for ids, drawn from the system's generator a block at a time and each used once (as
 * crypto.randomUUID does): a Git import makes an id per page, and one draw per id was 3 to 5% of the
 * import's main thread (a buffer and a call into OpenSSL each). Cluster workers are processes of their own,
 * so no two share a block.
 */
const ID_BYTES_BLOCK = 4096;
const idBytes = Buffer.alloc(ID_BYTES_BLOCK);
let idBytesUsed = ID_BYTES_BLOCK;

function nextIdByte(): number {
  if (idBytesUsed === ID_BYTES_BLOCK) {
    randomFillSync(idBytes);
    idBytesUsed = 0;
  }
  return idBytes[idBytesUsed++]!;
}

/**
 * A random, URL-safe identifier (20 base62 characters, about 119 bits). Ids are made in application code
 * so that both database dialects store the same thing and rows can be referenced before they are inserted.
 */
export function newId(length = 20): string {
  let id = '';
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  while (id.length < length) {
    const byte = nextIdByte();
    if (byte < 248) id += BASE62[byte % 62];
  }
  return id;
}

/** A new API token: 32 random bytes, base64url, with a prefix that makes leaked tokens easy to recognise. */
export function newApiToken(): string {
  return `qk_${randomBytes(32).toString('base64url')}`;
}

/** Tokens are stored only as this hash, so a copy of the database does not hold usable credentials. */
export function hashToken(token: string): string {
  // The one-shot hash (Node >= 20.12) skips the Hash object; this runs on every authenticated request.
  return hash('sha256', token, 'hex');
}

/** Timestamps are ISO-8601 strings made in code (millisecond precision, UTC) for both dialects. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Jitter for retry delays, so that failing jobs do not retry in lock-step. */
export function jitter(maxMs: number): number {
  return maxMs > 0 ? randomInt(0, maxMs + 1) : 0;
}
