import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { hashToken, nowIso } from '../ids.js';
import { deleteUserTotp, findUserTotp, replaceRecoveryCodes, spendRecoveryCode, takeTotpStep, upsertPendingTotp, type UserTotpRow } from '../stores/totp-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { openValue, sealValue, type SealingKey } from './sealed-values.js';
import { inTransaction } from './transaction.js';

/*
 * The second factor (issue 24): TOTP as RFC 6238 and every authenticator app have it (SHA-1, 6 digits,
 * 30-second steps), with otpauth. The secret is sealed at rest. A code is accepted for its step and the ones
 * either side (clocks drift), and once: the step of the last code taken is kept, and a code of that step or
 * an earlier one is refused. Recovery codes are shown once, kept as SHA-256 hashes, each spent once.
 */

const SEALING: SealingKey = { secretName: 'user-totp', info: 'quire user totp secrets v1' };
const PERIOD_SECONDS = 30;
/** Steps either side of now whose codes are still accepted. */
const WINDOW = 1;
const RECOVERY_CODE_COUNT = 10;
/** Base32 without look-alikes; 10 characters of it are 50 bits, enough with sign-ins throttled. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const TOTP_CODE = /^[0-9]{6}$/;

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: 'Quire', label, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

async function secretOf(context: ServiceContext, row: UserTotpRow): Promise<string> {
  return openValue(context.db, SEALING, row.secret_sealed, row.user_id);
}

function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

function recoveryCodeHash(code: string): string {
  return hashToken(code.trim().toLowerCase());
}

/** The step of `code` if it is the current code of `secretBase32` (within the window), else undefined. */
function matchingStep(secretBase32: string, code: string): number | undefined {
  if (!TOTP_CODE.test(code)) return undefined;
  const timestamp = Date.now();
  const totp = totpOf(secretBase32, 'check');
  const delta = totp.validate({ token: code, timestamp, window: WINDOW });
  return delta === null ? undefined : totp.counter({ timestamp }) + delta;
}

/** Whether the user has a confirmed second factor (sign-in then asks for a code). */
export async function hasSecondFactor(context: ServiceContext, userId: string): Promise<boolean> {
  const row = await findUserTotp(context.db, userId);
  return row?.confirmed_at != null;
}

/**
 * Checks a second-factor code of a user with a confirmed TOTP: a current code not used before, or an unspent
 * recovery code, which this spends. False for anything else.
 */
export async function useSecondFactor(context: ServiceContext, userId: string, code: string): Promise<boolean> {
  const row = await findUserTotp(context.db, userId);
  if (!row || row.confirmed_at === null) return false;
  if (TOTP_CODE.test(code)) {
    const step = matchingStep(await secretOf(context, row), code);
    return step !== undefined && takeTotpStep(context.db, userId, step);
  }
  return spendRecoveryCode(context.db, userId, recoveryCodeHash(code), nowIso());
}

export async function startTotpEnrollment(context: ServiceContext, caller: Caller): Promise<{ secret: string; otpauthUrl: string }> {
  const existing = await findUserTotp(context.db, caller.user.id);
  if (existing?.confirmed_at != null) throw new ConflictError('A second factor is already on: turn it off (disableTotp) before setting up another');
  const secret = new Secret({ size: 20 }).base32;
  await upsertPendingTotp(context.db, caller.user.id, await sealValue(context.db, SEALING, secret, caller.user.id), nowIso());
  return { secret, otpauthUrl: totpOf(secret, caller.user.email).toString() };
}

/** Turns the second factor on with its first code and answers the recovery codes, in clear this once. */
export async function confirmTotpEnrollment(context: ServiceContext, caller: Caller, code: string): Promise<string[]> {
  const row = await findUserTotp(context.db, caller.user.id);
  if (!row) throw new NotFoundError('No second factor is being set up: start with startTotpEnrollment');
  if (row.confirmed_at !== null) throw new ConflictError('The second factor is already on');
  const step = matchingStep(await secretOf(context, row), code);
  if (step === undefined) throw new ForbiddenError('The code is not the current code of the authenticator app');
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const confirmed = await inTransaction(context, async (tx) => {
    const now = nowIso();
    if (!await takeTotpStep(tx.db, caller.user.id, step, now)) return false;
    await replaceRecoveryCodes(tx.db, caller.user.id, codes.map(recoveryCodeHash), now);
    return true;
  });
  if (!confirmed) throw new ForbiddenError('The code is not the current code of the authenticator app');
  return codes;
}

/** Turns the second factor off, given a current code or a recovery code. */
export async function disableTotp(context: ServiceContext, caller: Caller, code: string): Promise<void> {
  const row = await findUserTotp(context.db, caller.user.id);
  if (!row || row.confirmed_at === null) throw new NotFoundError('No second factor is on');
  if (!await useSecondFactor(context, caller.user.id, code)) throw new ForbiddenError('The code is not a current code of the authenticator app nor an unspent recovery code');
  await inTransaction(context, (tx) => deleteUserTotp(tx.db, caller.user.id));
}
