import { expect, it } from 'vitest';
import { pulseWeeks, weekOf } from './conversation-weeks.js';

it('buckets by weeks starting on Monday 00:00 UTC and lists the 13 weeks ending with the current one', () => {
  expect(weekOf('2024-06-02T23:59:59.999Z')).toBe('2024-05-27'); // a Sunday ends the week of Monday 27 May
  expect(weekOf('2024-06-03T00:00:00.000Z')).toBe('2024-06-03'); // Monday starts a new one
  expect(weekOf('2024-01-01T12:00:00+14:00')).toBe('2023-12-25'); // 2023-12-31T22:00Z, a Sunday in UTC
  const weeks = pulseWeeks(new Date('2024-06-05T10:00:00Z'));
  expect(weeks).toHaveLength(13);
  expect(weeks[12]).toBe('2024-06-03');
  expect(weeks[0]).toBe('2024-03-11');
});
