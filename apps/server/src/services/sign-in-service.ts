import { ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.js';
import { nowIso } from '../ids.js';
import { deleteBrowserSessionsOfUser } from '../stores/browser-session-store.js';
import { findUserPasswordHash, upsertUserPasswordHash } from '../stores/user-password-store.js';
import { findUserByEmail, type UserRow } from '../stores/user-store.js';
import { openBrowserSession, type OpenedBrowserSession } from './browser-session-service.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from './password-hashing.js';
import { checkPasswordRules } from './password-rules.js';
import { signInThrottleOf } from './sign-in-throttle.js';
import { hasSecondFactor, useSecondFactor } from './totp-service.js';
import { inTransaction } from './transaction.js';

/*
 * Signing in with a password (issue 24), changing it, and the operator's reset. A failed sign-in answers the
 * same 401 whether the email is unknown, has no password, or the password or code is wrong, and costs the
 * same: the same reads, and a password verified against a decoy hash when there is no real one.
 */

const WRONG_CREDENTIALS = 'The email, password or code is not right';

export interface SignInInput {
  email: string;
  password: string;
  code?: string | undefined;
  /** The client's address (throttling, and shown nowhere but the session's row). */
  address: string | undefined;
  userAgent: string | undefined;
}

export type SignInResult =
  | { kind: 'session'; opened: OpenedBrowserSession; user: UserRow }
  /** The password was right; the account has a second factor and no code was given. */
  | { kind: 'challenge' };

export async function signIn(context: ServiceContext, input: SignInInput): Promise<SignInResult> {
  const throttle = signInThrottleOf(context);
  await throttle.assertAllowed(input.email, input.address);
  const user = await findUserByEmail(context.db, input.email);
  // The hash is read for an unknown email too (of no user), so both paths make the same reads.
  const passwordHash = await findUserPasswordHash(context.db, user?.id ?? '');
  const matches = await verifyPassword(passwordHash ?? await decoyPasswordHash(), input.password);
  const failed = async (): Promise<never> => {
    await throttle.recordFailure(input.email, input.address);
    throw new UnauthorizedError(WRONG_CREDENTIALS);
  };
  if (!user || passwordHash === undefined || !matches) return failed();

  if (await hasSecondFactor(context, user.id)) {
    if (input.code === undefined) return { kind: 'challenge' };
    if (!await useSecondFactor(context, user.id, input.code)) return failed();
  }
  if (needsRehash(passwordHash)) await upsertUserPasswordHash(context.db, user.id, await hashPassword(input.password), nowIso());
  await throttle.recordSuccess(input.email);
  const opened = await openBrowserSession(context, { userId: user.id, method: 'password', userAgent: input.userAgent, address: input.address });
  return { kind: 'session', opened, user };
}

/**
 * Changes the caller's password, given the current one; every other session of theirs ends in the same
 * transaction (the request's own, if it is one, stays open). A wrong current password counts as a failed
 * sign-in of the account.
 */
export async function updateUserPassword(context: ServiceContext, caller: Caller, body: { currentPassword: string; newPassword: string }, address: string | undefined): Promise<void> {
  const throttle = signInThrottleOf(context);
  await throttle.assertAllowed(caller.user.email, address);
  const passwordHash = await findUserPasswordHash(context.db, caller.user.id);
  const matches = await verifyPassword(passwordHash ?? await decoyPasswordHash(), body.currentPassword);
  if (passwordHash === undefined || !matches) {
    await throttle.recordFailure(caller.user.email, address);
    throw new ForbiddenError('currentPassword is not the current password');
  }
  checkPasswordRules(body.newPassword, 'newPassword');
  const newHash = await hashPassword(body.newPassword);
  await inTransaction(context, async (tx) => {
    await upsertUserPasswordHash(tx.db, caller.user.id, newHash, nowIso());
    await deleteBrowserSessionsOfUser(tx.db, caller.user.id, caller.sessionId);
  });
}

/** The operator's reset (`admin set-password`): sets the password of the account with this email and ends all its sessions. */
export async function setUserPasswordByEmail(context: ServiceContext, email: string, password: string): Promise<{ userId: string }> {
  checkPasswordRules(password);
  const user = await findUserByEmail(context.db, email);
  if (!user) throw new NotFoundError(`No user has the email ${email}`);
  const passwordHash = await hashPassword(password);
  await inTransaction(context, async (tx) => {
    await upsertUserPasswordHash(tx.db, user.id, passwordHash, nowIso());
    await deleteBrowserSessionsOfUser(tx.db, user.id);
  });
  return { userId: user.id };
}
