import { describe, expect, it } from 'vitest';
import { parseRison, RisonError } from './rison.js';

describe('parseRison', () => {
  it('reads objects of claims', () => {
    expect(parseRison("(beta:!t,plan:pro,seats:3,name:'A b!'s',off:!f,none:!n,list:!(1,two),nested:(x:-1.5))")).toEqual({
      beta: true, plan: 'pro', seats: 3, name: "A b's", off: false, none: null, list: [1, 'two'], nested: { x: -1.5 },
    });
    expect(parseRison('()')).toEqual({});
  });

  it('refuses what is not rison', () => {
    for (const bad of ['(a:', '(a:!x)', "(a:'open)", '(a:1)b', '(a 1)', '', '('.repeat(40)]) expect(() => parseRison(bad), bad).toThrow(RisonError);
  });
});
