import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { nowIso } from '../ids.js';
import { findServerSecret, insertServerSecretIfAbsent } from '../stores/server-secret-store.js';
import type { ServiceContext } from './context.js';

export const VISITOR_CLAIMS_KEY = 'visitor-claims-hs256';

/** One lookup per database per process: the stored key never changes once made. */
const cache = new WeakMap<Db, Promise<string>>();

async function loadOrCreate(db: Db, name: string): Promise<string> {
  const existing = await findServerSecret(db, name);
  if (existing) return existing;
  // Two nodes may get here at once: both insert-if-absent, then both read back the one that won.
  await insertServerSecretIfAbsent(db, name, randomBytes(32).toString('base64url'), nowIso());
  const stored = await findServerSecret(db, name);
  if (!stored) throw new Error(`server secret ${name} could not be stored`);
  return stored;
}

/**
 * The key that signs visitor claims: QUIRE_JWT_SECRET when the operator set one, otherwise a random key
 * made once and kept in the database so that every node of a deployment signs with the same key.
 */
export async function visitorClaimsSecret(context: ServiceContext): Promise<string> {
  if (context.jwtSecret) return context.jwtSecret;
  let secret = cache.get(context.db);
  if (!secret) {
    secret = loadOrCreate(context.db, VISITOR_CLAIMS_KEY);
    cache.set(context.db, secret);
    // A failed attempt (database briefly unreachable) must not be remembered.
    secret.catch(() => cache.delete(context.db));
  }
  return secret;
}

/** Secrets by database, then by name (see `serverSecret`). */
const namedCache = new WeakMap<Db, Map<string, Promise<string>>>();

/**
 * A random secret of 32 bytes (base64url) kept under `name` in `server_secrets`, made by whichever node asks
 * first, so every node of a deployment (API nodes and workers) gets the same one. Pass the root database,
 * not a transaction: the secret must outlive the caller's transaction whatever becomes of it.
 */
export async function serverSecret(db: Db, name: string): Promise<string> {
  let byName = namedCache.get(db);
  if (!byName) {
    byName = new Map();
    namedCache.set(db, byName);
  }
  let secret = byName.get(name);
  if (!secret) {
    const names = byName;
    secret = loadOrCreate(db, name);
    names.set(name, secret);
    secret.catch(() => names.delete(name));
  }
  return secret;
}
