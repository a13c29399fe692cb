import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { absoluteUrl, publicBaseOf, readAddress, requestTarget, safeDecode } from './address.js';

const request = (headers: Record<string, string>, url = '/'): IncomingMessage => ({ url, headers }) as unknown as IncomingMessage;

describe('requestTarget', () => {
  it('splits the path from the query, and parses no query when none is sent', () => {
    const bare = requestTarget('/sites/docs/guide');
    expect(bare).toMatchObject({ pathname: '/sites/docs/guide', hasQuery: false });
    expect([...bare.query]).toEqual([]);
    // The empty query is shared by every address without one.
    expect(requestTarget('/other').query).toBe(bare.query);
    const withQuery = requestTarget('/sites/docs/search?q=install&x=1');
    expect(withQuery).toMatchObject({ pathname: '/sites/docs/search', hasQuery: true });
    expect(withQuery.query.get('q')).toBe('install');
  });
});

describe('readAddress', () => {
  const publicBase = publicBaseOf('https://quire.example.com');

  it('takes the secrets out of the address it looks up, and remembers them as brought now', () => {
    const target = requestTarget('/sites/docs/page?shareKey=k1&q=a&jwt_token=j1');
    const address = readAddress(request({ host: 'internal:8080' }), target, publicBase);
    expect(address).toMatchObject({
      cleanPath: '/sites/docs/page?q=a',
      url: 'https://quire.example.com/sites/docs/page?q=a',
      origin: 'https://quire.example.com',
      secure: true,
      shareKey: 'k1',
      jwt: 'j1',
      newShareKey: 'k1',
      newJwt: 'j1',
      open: false,
    });
    // The search page reads the same query, without the secrets.
    expect(target.query.has('shareKey')).toBe(false);
    expect(target.query.get('q')).toBe('a');
  });

  it('reads the secrets and the member session from the cookies when the address brings none', () => {
    const cookie = 'quire_share_key=from-cookie; quire_visitor_jwt=jwt-cookie; quire_session=s1';
    const address = readAddress(request({ host: 'docs.example.org', cookie }), requestTarget('/guide'), undefined);
    expect(address).toMatchObject({ shareKey: 'from-cookie', jwt: 'jwt-cookie', session: 's1', newShareKey: undefined, newJwt: undefined, open: false });
    expect(address.url).toBe('http://docs.example.org/guide');
  });

  it('prefers a key brought in the address to the one in the cookie', () => {
    const address = readAddress(request({ cookie: 'quire_share_key=old' }), requestTarget('/sites/docs?shareKey=new'), publicBase);
    expect(address.shareKey).toBe('new');
    expect(address.cleanPath).toBe('/sites/docs');
  });

  it('is open when the visitor brings no share key or JWT, even with a member session', () => {
    const address = readAddress(request({ cookie: 'quire_session=s1' }), requestTarget('/sites/docs'), publicBase);
    expect(address.open).toBe(true);
    expect(address.session).toBe('s1');
  });
});

describe('absoluteUrl', () => {
  it('puts /sites/ addresses at the public URL and every other one at the request Host', () => {
    const base = publicBaseOf('https://quire.example.com/ignored');
    expect(absoluteUrl(request({ host: '127.0.0.1:8080' }), '/sites/docs', base).url).toBe('https://quire.example.com/sites/docs');
    expect(absoluteUrl(request({ host: 'docs.example.org' }), '/guide', base).url).toBe('https://docs.example.org/guide');
  });

  it('trusts the first X-Forwarded-Proto only without a public URL, and defaults the Host', () => {
    expect(absoluteUrl(request({ host: 'docs.example.org', 'x-forwarded-proto': 'https, http' }), '/a', undefined)).toEqual({
      url: 'https://docs.example.org/a',
      origin: 'https://docs.example.org',
      secure: true,
    });
    expect(absoluteUrl(request({ 'x-forwarded-proto': 'ftp' }), '/a', undefined)).toEqual({ url: 'http://localhost/a', origin: 'http://localhost', secure: false });
    expect(absoluteUrl(request({ host: 'h', 'x-forwarded-proto': 'https' }), '/a', publicBaseOf('http://quire.test')).secure).toBe(false);
  });
});

describe('safeDecode', () => {
  it('decodes escapes, and leaves malformed ones as they are (they then match no page)', () => {
    expect(safeDecode('caf%C3%A9')).toBe('café');
    expect(safeDecode('%E0%A4%A')).toBe('%E0%A4%A');
  });
});
