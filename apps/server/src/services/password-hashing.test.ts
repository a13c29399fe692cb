import { describe, expect, it } from 'vitest';
import { decoyPasswordHash, hashPassword, needsRehash, PASSWORD_HASH_PARAMETERS, verifyPassword } from './password-hashing.js';

describe('password hashing', () => {
  it('hashes with argon2id at the stated parameters and verifies only the same password', async () => {
    const hash = await hashPassword('correct horse battery staple');
    const { memoryCost, timeCost, parallelism } = PASSWORD_HASH_PARAMETERS;
    expect(hash).toMatch(new RegExp(`^\\$argon2id\\$v=19\\$m=${memoryCost},t=${timeCost},p=${parallelism}\\$`));
    expect(hash).not.toContain('correct horse');
    expect(await verifyPassword(hash, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse battery stapler')).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same password here')).not.toBe(await hashPassword('same password here'));
  });

  it('matches nothing against a malformed hash, and asks to rehash weaker ones', async () => {
    expect(await verifyPassword('not a hash', 'anything at all')).toBe(false);
    expect(needsRehash('$argon2id$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    expect(needsRehash('$2b$10$abcdefghijklmnopqrstuv')).toBe(true);
    expect(await verifyPassword(await decoyPasswordHash(), '')).toBe(false);
  });
});
