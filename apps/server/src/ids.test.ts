import { describe, expect, it, vi } from 'vitest';

const draws = vi.hoisted(() => ({ fills: 0, bytes: 0 }));

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    randomFillSync: <T extends NodeJS.ArrayBufferView>(buffer: T): T => {
      draws.fills += 1;
      return crypto.randomFillSync(buffer);
    },
    randomBytes: (size: number) => {
      draws.bytes += 1;
      return crypto.randomBytes(size);
    },
  };
});

const { newId } = await import('./ids.js');

describe('newId', () => {
  it('draws random bytes a block at a time, not once per id, and makes distinct base62 ids of the length asked', () => {
    const ids = Array.from({ length: 5_000 }, () => newId());
    // 5,000 ids of 20 characters take about 103,000 bytes (1 in 32 refused): 26 blocks of 4,096.
    expect(draws.bytes).toBe(0);
    expect(draws.fills).toBeLessThanOrEqual(30);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(newId(6)).toMatch(/^[0-9A-Za-z]{6}$/);
  });

  it('makes every character about equally likely', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) for (const char of newId()) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (2_000 * 20) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.25);
  });
});
