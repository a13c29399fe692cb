import { describe, expect, it } from 'vitest';
import { commonHeaders, csp } from './headers.js';

describe('commonHeaders', () => {
  it('lets shared caches keep open sites (revalidated) and only the browser keep restricted ones', () => {
    expect(commonHeaders('public')['Cache-Control']).toBe('public, no-cache');
    expect(commonHeaders('unlisted')['Cache-Control']).toBe('public, no-cache');
    expect(commonHeaders('share-link')['Cache-Control']).toBe('private, no-cache');
    expect(commonHeaders('visitor-auth')['Cache-Control']).toBe('private, no-cache');
    expect(commonHeaders()['Cache-Control']).toBe('private, no-cache');
  });

  it('asks robots not to index any site but a public one', () => {
    expect(commonHeaders('public')['X-Robots-Tag']).toBeUndefined();
    expect(commonHeaders()['X-Robots-Tag']).toBeUndefined();
    for (const visibility of ['unlisted', 'share-link', 'visitor-auth']) expect(commonHeaders(visibility)['X-Robots-Tag']).toBe('noindex');
  });

  it('always forbids sniffing and framing by another origin, and varies by cookie', () => {
    expect(commonHeaders('public')).toMatchObject({
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
      'X-Frame-Options': 'SAMEORIGIN',
      Vary: 'Cookie',
    });
  });
});

describe('csp', () => {
  it("allows a page's one inline style by its hash, and bare pages only 'self' styles", () => {
    const directives = (policy: string) => Object.fromEntries(policy.split('; ').map((part) => [part.split(' ')[0], part]));
    expect(directives(csp("'sha256-abc='"))['style-src']).toBe("style-src 'self' 'sha256-abc='");
    // 'none' beside 'self' is a console error in Chromium.
    expect(directives(csp())['style-src']).toBe("style-src 'self'");
    expect(directives(csp())).toMatchObject({
      'default-src': "default-src 'none'",
      'script-src': "script-src 'self'",
      'base-uri': "base-uri 'none'",
      'frame-ancestors': "frame-ancestors 'self'",
    });
  });
});
