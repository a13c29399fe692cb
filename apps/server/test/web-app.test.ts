import { existsSync, readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CONTENT_SECURITY_POLICY, isAppPath } from '../src/http/web-app-route.js';
import { startTestServer, type TestServer } from './server.js';

/** The app and the API reference as `npm start` serves them, on the API's port. */

const webDist = join(import.meta.dirname, '..', '..', 'web', 'dist');

describe('web app routes', () => {
  it('answers the app page only at its own addresses', () => {
    for (const path of ['/', '/sign-in', '/o/org1', '/o/org1/s/space1/~/changes/3/guide/install', '/join/abc', '/integrations/slack']) {
      expect(isAppPath(path), path).toBe(true);
    }
    for (const path of ['/v1', '/v1/', '/v1/orgs', '/auth/saml/p1', '/auth/cli/start', '/healthz', '/readyz', '/downloads/x/y', '/openapi/o/s/latest', '/docs', '/o/', '/sites/x', '/favicon.ico']) {
      expect(isAppPath(path), path).toBe(false);
    }
  });

  it('allows no inline script in the app policy', () => {
    const script = /script-src ([^;]+)/.exec(APP_CONTENT_SECURITY_POLICY)?.[1] ?? '';
    expect(script).toBe("'self'");
    expect(APP_CONTENT_SECURITY_POLICY).not.toContain('unsafe');
  });
});

describe.skipIf(!existsSync(join(webDist, 'index.html')))('web app served by the server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('serves the app page with its policy, revalidated on every navigation', async () => {
    for (const path of ['/', '/o/x/s/y/some/page', '/join/secret']) {
      const answer = await fetch(`${server.url}${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toContain('text/html');
      expect(answer.headers.get('cache-control')).toBe('no-cache');
      expect(answer.headers.get('content-security-policy')).toBe(APP_CONTENT_SECURITY_POLICY);
      const html = await answer.text();
      expect(html).toContain('<div id="root"></div>');
      // Every script is a file of the build: none inline, which the policy would refuse.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('caches hashed assets for a year', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const answer = await fetch(`${server.url}${script}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(answer.headers.get('content-type')).toContain('javascript');
    const missing = await fetch(`${server.url}/assets/nothing-here.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 404, message: expect.any(String) } });
    const malformed = await fetch(`${server.url}/assets/%E0%A4%A.js`);
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: { code: 400, message: expect.stringContaining('percent-encoding') } });
  });

  it('sends each asset compressed as the browser accepts, brotli first, and the same bytes once decoded', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const plain = Buffer.from(readFileSync(join(webDist, script)));
    const raw = (encoding: string) => new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      // node:http, not fetch: fetch would decode the body and hide what was sent.
      get(`${server.url}${script}`, { headers: { 'accept-encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    const brotli = await raw('gzip, deflate, br');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers.vary).toContain('Accept-Encoding');
    expect(brotli.headers['content-type']).toContain('javascript');
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(brotli.body).equals(plain)).toBe(true);
    expect(brotli.body.length).toBeLessThan(plain.length / 2);
    const gzip = await raw('gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);
    const identity = await raw('identity');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(plain)).toBe(true);
  });

  it('never answers the app page for API and server addresses', async () => {
    const api = await fetch(`${server.url}/v1/no-such-thing`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
    const auth = await fetch(`${server.url}/auth/nothing`);
    expect(auth.status).toBe(404);
    expect(auth.headers.get('content-type')).toContain('application/json');
    const health = await fetch(`${server.url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it('serves the API reference at /docs', async () => {
    const answer = await fetch(`${server.url}/docs`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/html');
    expect(await answer.text()).toContain('Quire Management API reference');
  });
});
