import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../errors.js';
import { checkPasswordRules } from './password-rules.js';

describe('checkPasswordRules', () => {
  it('takes a long uncommon password', () => {
    expect(() => checkPasswordRules('correct horse battery staple')).not.toThrow();
  });

  it('names the rule a password breaks', () => {
    expect(() => checkPasswordRules('short')).toThrow(/at least 12 characters/);
    expect(() => checkPasswordRules('x'.repeat(257))).toThrow(/at most 256 characters/);
    expect(() => checkPasswordRules('1q2w3e4r5t6y')).toThrow(/most common passwords/);
    expect(() => checkPasswordRules('QWERTY123456')).toThrow(BadRequestError);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(() => checkPasswordRules('🔒'.repeat(11))).toThrow(/at least 12/);
    expect(() => checkPasswordRules('🔒'.repeat(256))).not.toThrow();
  });
});
