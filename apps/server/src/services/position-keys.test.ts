import { describe, expect, it } from 'vitest';
import { isValidPositionKey, positionBetween, PositionKeyError } from './position-keys.js';

describe('position keys', () => {
  it('starts at a0 and appends and prepends with short keys', () => {
    expect(positionBetween(null, null)).toBe('a0');
    expect(positionBetween('a0', null)).toBe('a1');
    expect(positionBetween(null, 'a0')).toBe('Zz');
    expect(positionBetween('az', null)).toBe('b00');
    expect(positionBetween(null, 'b00')).toBe('az');
  });

  it('keeps a thousand appends, and a thousand prepends, ordered and short', () => {
    const appended = [positionBetween(null, null)];
    for (let index = 0; index < 1000; index++) appended.push(positionBetween(appended.at(-1)!, null));
    expect([...appended].sort()).toEqual(appended);
    expect(new Set(appended).size).toBe(appended.length);
    expect(Math.max(...appended.map((key) => key.length))).toBeLessThanOrEqual(3);

    const prepended = [positionBetween(null, null)];
    for (let index = 0; index < 1000; index++) prepended.unshift(positionBetween(null, prepended[0]!));
    expect([...prepended].sort()).toEqual(prepended);
    expect(Math.max(...prepended.map((key) => key.length))).toBeLessThanOrEqual(3);
  });

  it('always finds a key strictly between two neighbours, however often the same gap is split', () => {
    let low = positionBetween(null, null);
    let high = positionBetween(low, null);
    for (let index = 0; index < 200; index++) {
      const middle = positionBetween(low, high);
      expect(low < middle && middle < high, `${low} < ${middle} < ${high}`).toBe(true);
      expect(isValidPositionKey(middle)).toBe(true);
      if (index % 2 === 0) low = middle;
      else high = middle;
    }
  });

  it('inserting at random places keeps every key valid, unique and in order', () => {
    const keys: string[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let index = 0; index < 2000; index++) {
      const at = Math.floor(random() * (keys.length + 1));
      const key = positionBetween(keys[at - 1] ?? null, keys[at] ?? null);
      keys.splice(at, 0, key);
    }
    expect([...keys].sort()).toEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.every(isValidPositionKey)).toBe(true);
  });

  it('refuses neighbours out of order and malformed keys', () => {
    expect(() => positionBetween('a1', 'a0')).toThrow(PositionKeyError);
    expect(() => positionBetween('a1', 'a1')).toThrow(PositionKeyError);
    expect(() => positionBetween('!', null)).toThrow(PositionKeyError);
    expect(isValidPositionKey('a10')).toBe(false);
    expect(isValidPositionKey('b0')).toBe(false);
    expect(isValidPositionKey('')).toBe(false);
  });
});
