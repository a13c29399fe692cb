import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { lazyModule, warmLazyModules } from './lazy-module.js';

describe('lazy modules', () => {
  it('loads a library on first use only, and gives the same module every time', () => {
    const diff3 = lazyModule<typeof import('node-diff3')>('node-diff3');
    const first = diff3();
    expect(typeof first.diff3Merge).toBe('function');
    expect(diff3()).toBe(first);
    expect(first).toBe(createRequire(import.meta.url)('node-diff3'));
  });

  it('loads the registered libraries in the background, but not those marked warm: false', async () => {
    const missing = lazyModule<unknown>('a-package-quire-does-not-have', { warm: false });
    lazyModule<typeof import('yaml')>('yaml');
    // Warming would throw had it required the missing package.
    expect(await warmLazyModules()).toBeGreaterThanOrEqual(2);
    expect(() => missing()).toThrow(/Cannot find module/);
  });
});
