import { lazyModule } from '../lazy-module.js';

/*
 * Password hashes: argon2id through @node-rs/argon2 (a native binding that hashes on libuv's thread pool, so a
 * hash never blocks the event loop). Parameters are OWASP's Password Storage Cheat Sheet recommendation for
 * argon2id (the first of its equivalent settings): 19 MiB of memory, 2 iterations, 1 degree of parallelism.
 * The PHC string stores them with the hash, so a later raise of these numbers still verifies older hashes
 * (`needsRehash` tells the sign-in to store a new one).
 */

// Loaded on first use, or by the warm-up after start: starting the server does not need the native module.
const argon2 = lazyModule<typeof import('@node-rs/argon2')>('@node-rs/argon2');

/** argon2id (the binding's `Algorithm.Argon2id`, a const enum that isolated modules cannot import). */
const ARGON2ID = 2;
export const PASSWORD_HASH_PARAMETERS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  return argon2().hash(password, { algorithm: ARGON2ID, ...PASSWORD_HASH_PARAMETERS });
}

/** Whether the password matches the stored hash; a malformed hash matches nothing. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await argon2().verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * A hash to verify against when the account has no password (or does not exist), so that a failed sign-in
 * costs the same time whether or not the email has an account. Computed once, of a random password.
 */
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(crypto.randomUUID());
  return decoyHash;
}

/** Whether a stored hash was made with weaker parameters than today's, and should be replaced at sign-in. */
export function needsRehash(passwordHash: string): boolean {
  const match = /^\$argon2id\$v=\d+\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(passwordHash);
  if (!match) return true;
  const [memoryCost, timeCost, parallelism] = match.slice(1).map(Number) as [number, number, number];
  return memoryCost < PASSWORD_HASH_PARAMETERS.memoryCost || timeCost < PASSWORD_HASH_PARAMETERS.timeCost || parallelism < PASSWORD_HASH_PARAMETERS.parallelism;
}
