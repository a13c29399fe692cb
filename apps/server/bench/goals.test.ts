import { describe, expect, it } from 'vitest';
import { formatGoals, GOALS, isMet } from './goals.js';

describe('the goals table of npm run bench', () => {
  it('meets an upper bound at or below it and a lower bound at or above it', () => {
    expect(isMet({ goal: 'editMedian', dialect: 'sqlite', value: 15 })).toBe(true);
    expect(isMet({ goal: 'editMedian', dialect: 'sqlite', value: 15.1 })).toBe(false);
    expect(isMet({ goal: 'getSpaceRatio', dialect: 'sqlite', value: 0.35 })).toBe(true);
    expect(isMet({ goal: 'getSpaceRatio', dialect: 'sqlite', value: 0.34 })).toBe(false);
  });

  it('misses a goal whose condition fails, however fast', () => {
    const figure = { goal: 'commonWordP99' as const, dialect: 'sqlite' as const, value: 3, condition: { holds: false, says: 'top 10 differs' } };
    expect(isMet(figure)).toBe(false);
    expect(formatGoals([figure])).toMatch(/3\.0 ms MISSED \(top 10 differs\)/);
  });

  it('prints every goal, the worst figure of a database, and "-" where nothing was measured', () => {
    const table = formatGoals([
      { goal: 'getSpaceRatio', dialect: 'postgres', value: 0.4 },
      { goal: 'getSpaceRatio', dialect: 'postgres', value: 0.3 },
      { goal: 'firstAnswer', dialect: 'sqlite', value: 650 },
    ]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(2 + Object.keys(GOALS).length);
    const ratioLine = lines.find((line) => line.startsWith(GOALS.getSpaceRatio.what))!;
    expect(ratioLine).toMatch(/>= 0\.350\s+-\s+0\.300 MISSED/);
    expect(lines.find((line) => line.startsWith(GOALS.firstAnswer.what))).toMatch(/650 ms met\s+-/);
  });
});
