import { describe, expect, it } from 'vitest';
import { ConditionError, conditionClaims, evaluateCondition, parseCondition } from './site-conditions.js';

describe('site conditions', () => {
  it('evaluates claims, logic and comparisons without coercion', () => {
    const claims = { unsigned: { beta: true, language: 'fr' }, plan: 'pro', seats: 3 };
    const check = (text: string) => evaluateCondition(parseCondition(text), claims);
    expect(check('visitor.claims.unsigned.beta')).toBe(true);
    expect(check('visitor.claims.unsigned.beta && visitor.claims.plan == "free"')).toBe(false);
    expect(check('visitor.claims.plan == "free" || visitor.claims.seats >= 3')).toBe(true);
    expect(check('!(visitor.claims.seats > 3)')).toBe(true);
    expect(check('visitor.claims.missing != null')).toBe(false);
    expect(check('visitor.claims.missing == null')).toBe(true);
    expect(check('visitor.claims.seats > "2"')).toBe(false);
    expect(check('visitor.claims.seats > -1')).toBe(true);
    expect(conditionClaims(parseCondition('visitor.claims.a.b && !visitor.claims.c'))).toEqual([['a', 'b'], ['c']]);
  });

  it('refuses what is not the condition language', () => {
    for (const text of ['', '  ', 'a &&', 'x.y', 'visitor.claims', 'visitor.claims["a"]', 'visitor.claims.a()', 'visitor.claims.a = 1',
      'visitor.claims.a + 1', 'a; b', 'visitor.claims.a ? 1 : 2', '[1, 2]', 'this.x', 'visitor.claims.a ~ 1']) {
      expect(() => parseCondition(text), text).toThrow(ConditionError);
    }
  });
});
