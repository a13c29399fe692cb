import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashObject } from '../src/content/hash.js';
import { createApp } from '../src/http/app.js';
import type { OpenApiDocument } from '../src/http/openapi/contract.js';
import { createLogger } from '../src/logger.js';
import type { ServiceContext } from '../src/services/context.js';
import { LocalDiskBlobStorage } from '../src/storage/blob-storage.js';
import { contentDisposition } from '../src/http/download-route.js';
import { createUrlSigner, type UrlSigner } from '../src/storage/signed-urls.js';

// The app factory with a contract of one operation: the download route needs nothing of the API.
const contract: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'test', version: '1' },
  servers: [{ url: '/v1' }],
  paths: {
    '/nothing': { get: { operationId: 'nothing', security: [], responses: { 204: { description: 'nothing' } } } },
  },
};

const NOW = Date.UTC(2024, 4, 1, 12, 0, 0);
let clock = NOW;
let dir: string;
let server: Server;
let base: string;
let storage: LocalDiskBlobStorage;
let signer: UrlSigner;

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(2000)]);
const big = randomBytes(3 * 1024 * 1024 + 17);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A raw HTTP request (fetch would normalise the path and hide HEAD bodies). */
function send(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Path and query of a signed URL (its origin is the public URL, not the test server). */
function local(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

function errorOf(answer: Answer): { code: number; message: string } {
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  return (JSON.parse(answer.body.toString('utf8')) as { error: { code: number; message: string } }).error;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-downloads-'));
  storage = new LocalDiskBlobStorage({ dir });
  signer = createUrlSigner({ secret: 'download-route-test-secret-0123456789abcdef', publicUrl: 'https://quire.example', now: () => clock });
  const app = await createApp({
    services: {} as ServiceContext,
    logger: createLogger('silent'),
    publicUrl: 'https://quire.example',
    bodyLimitBytes: 1024 * 1024,
    responseValidation: 'fail',
    contract,
    handlers: {},
    downloads: { storage, signer, now: () => clock },
  });
  server = createServer(app.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /downloads/:hash/:filename', () => {
  it('streams the bytes with type, length, disposition, caching and nosniff headers', async () => {
    clock = NOW;
    const { hash, size } = await storage.put(png);
    const url = signer.sign({ hash, filename: 'diagram.png', contentType: 'image/png', ttlSeconds: 600 });
    const expires = Number(new URL(url).searchParams.get('expires'));
    clock = NOW + 60_000;
    const answer = await send('GET', local(url));
    expect(answer.status).toBe(200);
    expect(answer.body.equals(png)).toBe(true);
    expect(answer.headers['content-type']).toBe('image/png');
    expect(answer.headers['content-length']).toBe(String(size));
    expect(answer.headers['content-disposition']).toBe(`inline; filename="diagram.png"; filename*=UTF-8''diagram.png`);
    expect(answer.headers['cache-control']).toBe(`private, max-age=${expires - (NOW + 60_000) / 1000}`);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['etag']).toBe(`"${hash}"`);
    expect(answer.headers['content-security-policy']).toBeUndefined();
    expect(answer.headers['x-request-id']).toBeDefined();
  });

  it('streams large files whole', async () => {
    clock = NOW;
    const { hash } = await storage.put(big);
    const answer = await send('GET', local(signer.sign({ hash, filename: 'dump.tar.gz', contentType: 'application/gzip' })));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-length']).toBe(String(big.length));
    expect(hashObject('blob', answer.body)).toBe(hash);
    expect(answer.headers['content-disposition']).toMatch(/^attachment; /);
  });

  it('answers HEAD with the headers only, and If-None-Match with 304', async () => {
    clock = NOW;
    const { hash } = await storage.put(png);
    const path = local(signer.sign({ hash, filename: 'diagram.png', contentType: 'image/png' }));
    const head = await send('HEAD', path);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(png.length));
    expect(head.body.length).toBe(0);
    const cached = await send('GET', path, { 'If-None-Match': `"${hash}"` });
    expect(cached.status).toBe(304);
    expect(cached.body.length).toBe(0);
  });

  it('serves PDFs inline and other files as attachments under their exact name', async () => {
    clock = NOW;
    const { hash } = await storage.put(Buffer.from('%PDF-1.3 not really'));
    const pdf = await send('GET', local(signer.sign({ hash, filename: 'Change request #7.pdf', contentType: 'application/pdf' })));
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`inline; filename="Change request #7.pdf"; filename*=UTF-8''Change%20request%20%237.pdf`);

    const csv = await send('GET', local(signer.sign({ hash, filename: 'Résumé "final".csv', contentType: 'text/csv' })));
    expect(csv.status).toBe(200);
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="R_sum_ _final_.csv"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.csv`);
  });

  it('locks active content (SVG, HTML) into a sandbox with a restrictive CSP', async () => {
    clock = NOW;
    const { hash: svg } = await storage.put(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'));
    const image = await send('GET', local(signer.sign({ hash: svg, filename: 'logo.svg', contentType: 'image/svg+xml' })));
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/svg+xml');
    expect(image.headers['content-disposition']).toMatch(/^inline; /);
    expect(image.headers['content-security-policy']).toBe("default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox");

    const { hash: html } = await storage.put(Buffer.from('<script>alert(1)</script>'));
    const page = await send('GET', local(signer.sign({ hash: html, filename: 'page.html', contentType: 'text/html' })));
    expect(page.status).toBe(200);
    expect(page.headers['content-disposition']).toMatch(/^attachment; /);
    expect(page.headers['content-security-policy']).toContain('sandbox');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 403 in the error shape for expired, tampered or unsigned links, and caches none of it', async () => {
    clock = NOW;
    const { hash } = await storage.put(png);
    const url = signer.sign({ hash, filename: 'diagram.png', contentType: 'image/png', ttlSeconds: 60 });
    const parsed = new URL(url);
    const sig = parsed.searchParams.get('sig')!;

    clock = NOW + 3600_000;
    const expired = await send('GET', local(url));
    expect(expired.status).toBe(403);
    expect(errorOf(expired)).toEqual({ code: 403, message: 'This download link has expired; ask the API for a new one' });
    expect(expired.headers['cache-control']).toBe('no-store');

    clock = NOW;
    const tampered = new URL(url);
    tampered.searchParams.set('sig', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    const cases = [
      local(tampered.toString()),
      local(url).replace('/diagram.png?', '/other.png?'),
      local(url).replace(/expires=\d+/, (match) => `expires=${Number(match.slice(8)) + 600}`),
      local(url).replace(/&sig=[0-9a-f]+/, ''),
      `/downloads/${hash}/diagram.png`,
      `${local(url)}&type=text%2Fhtml`,
    ];
    for (const path of cases) {
      const answer = await send('GET', path);
      expect(answer.status, path).toBe(403);
      expect(errorOf(answer)).toEqual({ code: 403, message: 'This download link is not valid' });
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['content-disposition']).toBeUndefined();
    }
  });

  it('answers 404 for a genuine link to bytes that are gone, 400 for a broken path, 405 for other methods', async () => {
    clock = NOW;
    const missing = 'f'.repeat(64);
    const gone = await send('GET', local(signer.sign({ hash: missing, filename: 'x.png', contentType: 'image/png' })));
    expect(gone.status).toBe(404);
    expect(errorOf(gone).code).toBe(404);

    const broken = await send('GET', `/downloads/${missing}/%E0%A4%A?expires=1&sig=${'0'.repeat(64)}`);
    expect(broken.status).toBe(400);
    expect(errorOf(broken)).toEqual({ code: 400, message: 'The path is not valid percent-encoded text' });

    const post = await send('POST', `/downloads/${missing}/x.png`);
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
    expect(errorOf(post).code).toBe(405);

    // Outside the route, the app's own 404 still answers.
    const other = await send('GET', '/downloads');
    expect(other.status).toBe(404);
  });
});

describe('contentDisposition', () => {
  it('writes an ASCII fallback and the exact UTF-8 name (RFC 6266 / RFC 8187)', () => {
    expect(contentDisposition('attachment', 'plain.txt')).toBe(`attachment; filename="plain.txt"; filename*=UTF-8''plain.txt`);
    expect(contentDisposition('inline', "it's (big) 100%*.pdf")).toBe(`inline; filename="it's (big) 100_*.pdf"; filename*=UTF-8''it%27s%20%28big%29%20100%25%2A.pdf`);
    expect(contentDisposition('attachment', '\u65e5\u672c.txt')).toBe(`attachment; filename="__.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt`);
  });
});
