import { BadRequestError } from '../errors.js';
import { lazyModule } from '../lazy-module.js';

/*
 * What a password must be: 12 to 256 characters (counted as Unicode code points, so an emoji is one), and not
 * one of the common passwords of zxcvbn-ts's list (about 49,000 passwords seen in breaches, compared without
 * case). Lengths follow NIST SP 800-63B: a floor that makes guessing slow, a ceiling far above any passphrase
 * that bounds the cost of hashing; no composition rules. Each refusal says which rule failed.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

const commonPasswords = lazyModule<typeof import('@zxcvbn-ts/language-common')>('@zxcvbn-ts/language-common', { warm: false });
let commonSet: Set<string> | undefined;
function isCommonPassword(password: string): boolean {
  commonSet ??= new Set(commonPasswords().dictionary['passwords-common'].map((entry) => String(entry).toLowerCase()));
  return commonSet.has(password.toLowerCase());
}

/** Refuses a password that breaks a rule, with a message naming the rule and the field. */
export function checkPasswordRules(password: string, field = 'password'): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) throw new BadRequestError(`${field} must be at least ${PASSWORD_MIN_LENGTH} characters long`);
  if (length > PASSWORD_MAX_LENGTH) throw new BadRequestError(`${field} must be at most ${PASSWORD_MAX_LENGTH} characters long`);
  if (isCommonPassword(password)) throw new BadRequestError(`${field} is one of the most common passwords; choose another`);
}
