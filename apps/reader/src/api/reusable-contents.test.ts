import { describe, expect, it } from 'vitest';
import { expandIncludes, insertedIds } from './reusable-contents.js';

describe('reusable contents inserted in a page', () => {
  const markdown = 'Intro.\n\n{% include "/reusable-contents/rc1" %}\n\n```\n{% include "/reusable-contents/rc2" %}\n```\n\n{% include "/reusable-contents/gone" %}\n';

  it('finds the ids the page inserts', () => {
    expect(insertedIds(markdown)).toEqual(['rc1', 'rc2', 'gone']);
    expect(insertedIds('No include.')).toEqual([]);
  });

  it('puts each body in place of its include line, keeps code as written and drops a missing one', () => {
    const bodies = new Map([['rc1', 'Write to **help@example.com**.\n'], ['rc2', 'never'], ['gone', undefined]]);
    expect(expandIncludes(markdown, bodies)).toBe('Intro.\n\nWrite to **help@example.com**.\n\n```\n{% include "/reusable-contents/rc2" %}\n```\n\n\n');
  });
});
