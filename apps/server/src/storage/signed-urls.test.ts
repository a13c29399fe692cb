import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createUrlSigner,
  generateUrlSecret,
  resolveUrlSecret,
  safeContentType,
  safeFilename,
  type DownloadParams,
  type UrlSigner,
} from './signed-urls.js';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const HASH = 'ab'.repeat(32);
const NOW = Date.UTC(2024, 4, 1, 12, 0, 0);

/** The parts of a signed URL as the download route sees them (path decoded, query as strings). */
function partsOf(url: string): DownloadParams {
  const parsed = new URL(url);
  const [, downloads, hash, filename] = parsed.pathname.split('/');
  expect(downloads).toBe('downloads');
  const params: DownloadParams = {
    hash: hash!,
    filename: decodeURIComponent(filename!),
    expires: parsed.searchParams.get('expires') ?? undefined,
    sig: parsed.searchParams.get('sig') ?? undefined,
  };
  const type = parsed.searchParams.get('type');
  if (type !== null) params.type = type;
  return params;
}

function signer(now = NOW, secret = SECRET): UrlSigner {
  return createUrlSigner({ secret, publicUrl: 'https://docs.example.com/', now: () => now });
}

describe('signed download URLs', () => {
  it('signs URLs of the documented shape and accepts them until they expire', () => {
    const url = signer().sign({ hash: HASH, filename: 'diagram.png', contentType: 'image/png', ttlSeconds: 600 });
    expect(url).toMatch(new RegExp(`^https://docs\\.example\\.com/downloads/${HASH}/diagram\\.png\\?expires=\\d+&sig=[0-9a-f]{64}$`));
    const parts = partsOf(url);
    const expires = Number(parts.expires);
    // Rounded up to the next 5 minutes: between the TTL and the TTL plus 300 seconds from now.
    expect(expires % 300).toBe(0);
    expect(expires * 1000).toBeGreaterThanOrEqual(NOW + 600_000);
    expect(expires * 1000).toBeLessThan(NOW + 900_000);

    expect(signer().verify(parts)).toEqual({ ok: true, hash: HASH, filename: 'diagram.png', contentType: 'image/png', expires });
    expect(signer(expires * 1000 - 1).verify(parts).ok).toBe(true);
    expect(signer(expires * 1000).verify(parts)).toEqual({ ok: false, reason: 'expired' });
    expect(signer(expires * 1000 + 86_400_000).verify(parts)).toEqual({ ok: false, reason: 'expired' });
  });

  it('gives the same URL to requests close in time, so browsers can reuse a download', () => {
    const request = { hash: HASH, filename: 'a.pdf', contentType: 'application/pdf' };
    expect(signer(NOW + 1_000).sign(request)).toBe(signer(NOW + 60_000).sign(request));
  });

  it('refuses tampered URLs: signature, expiry, hash, filename, content type, or another secret', () => {
    const parts = partsOf(signer().sign({ hash: HASH, filename: 'report.pdf', contentType: 'application/pdf' }));
    const sig = String(parts.sig);
    const flipped = (sig[0] === '0' ? '1' : '0') + sig.slice(1);
    expect(signer().verify({ ...parts, sig: flipped })).toEqual({ ok: false, reason: 'invalid' });
    expect(signer().verify({ ...parts, expires: String(Number(parts.expires) + 3600) })).toEqual({ ok: false, reason: 'invalid' });
    expect(signer().verify({ ...parts, hash: 'cd'.repeat(32) })).toEqual({ ok: false, reason: 'invalid' });
    expect(signer().verify({ ...parts, filename: 'report.html' })).toEqual({ ok: false, reason: 'invalid' });
    expect(signer().verify({ ...parts, filename: 'Report.pdf' })).toEqual({ ok: false, reason: 'invalid' });
    expect(signer().verify({ ...parts, type: 'text/html' })).toEqual({ ok: false, reason: 'invalid' });
    expect(signer(NOW, `${SECRET}-other`).verify(parts)).toEqual({ ok: false, reason: 'invalid' });
    // An expired URL that was also tampered with is just invalid: expiry is only told for genuine URLs.
    expect(signer(NOW + 10 * 86_400_000).verify({ ...parts, sig: flipped })).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses malformed parts before computing anything', () => {
    const parts = partsOf(signer().sign({ hash: HASH, filename: 'x.txt', contentType: 'text/plain' }));
    expect(signer().verify({ ...parts, sig: undefined })).toEqual({ ok: false, reason: 'malformed' });
    expect(signer().verify({ ...parts, sig: String(parts.sig).toUpperCase() })).toEqual({ ok: false, reason: 'malformed' });
    expect(signer().verify({ ...parts, sig: [String(parts.sig)] })).toEqual({ ok: false, reason: 'malformed' });
    expect(signer().verify({ ...parts, expires: '-1' })).toEqual({ ok: false, reason: 'malformed' });
    expect(signer().verify({ ...parts, expires: undefined })).toEqual({ ok: false, reason: 'malformed' });
    expect(signer().verify({ ...parts, hash: '../secret' })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('binds the content type: spelled out when the extension implies another one', () => {
    const s = signer();
    const plain = s.sign({ hash: HASH, filename: 'image.svg', contentType: 'image/svg+xml' });
    expect(new URL(plain).searchParams.has('type')).toBe(false);
    const typed = s.sign({ hash: HASH, filename: 'export', contentType: 'application/pdf' });
    expect(new URL(typed).searchParams.get('type')).toBe('application/pdf');
    expect(s.verify(partsOf(typed))).toMatchObject({ ok: true, contentType: 'application/pdf' });
    // Dropping the type would serve the bytes as the extension's type: the signature forbids it.
    const { type: _type, ...withoutType } = partsOf(typed);
    expect(s.verify(withoutType)).toEqual({ ok: false, reason: 'invalid' });
    const charset = s.sign({ hash: HASH, filename: 'notes.txt', contentType: 'text/plain; charset=utf-8' });
    expect(s.verify(partsOf(charset))).toMatchObject({ ok: true, contentType: 'text/plain; charset=utf-8' });
  });

  it('keeps filenames and types safe to put in a URL and a header', () => {
    expect(safeFilename('../etc/passwd')).toBe('.._etc_passwd');
    expect(safeFilename('a\r\nb\u0000.png')).toBe('ab.png');
    expect(safeFilename('   ')).toBe('download');
    expect(safeFilename('..')).toBe('download');
    expect([...safeFilename('\u00e9'.repeat(400))]).toHaveLength(255);
    expect(safeContentType('text/html\r\nSet-Cookie: x=1')).toBe('application/octet-stream');
    expect(safeContentType('Image/PNG')).toBe('image/png');
    expect(safeContentType('nonsense')).toBe('application/octet-stream');

    const url = signer().sign({ hash: HASH, filename: 'Résumé "final" #2?.pdf', contentType: 'application/pdf' });
    expect(new URL(url).pathname).toBe(`/downloads/${HASH}/R%C3%A9sum%C3%A9%20%22final%22%20%232%3F.pdf`);
    expect(signer().verify(partsOf(url))).toMatchObject({ ok: true, filename: 'Résumé "final" #2?.pdf' });
  });

  it('needs a secret of at least 32 bytes', () => {
    expect(() => createUrlSigner({ secret: 'short', publicUrl: 'http://x' })).toThrow(RangeError);
    expect(generateUrlSecret()).toMatch(/^[0-9a-f]{64}$/);
    expect(generateUrlSecret()).not.toBe(generateUrlSecret());
  });
});

describe('resolveUrlSecret', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'quire-secret-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes QUIRE_URL_SECRET when set, refusing a short one', async () => {
    expect(await resolveUrlSecret(SECRET, join(dir, 'secret'))).toBe(SECRET);
    await expect(resolveUrlSecret('too short', join(dir, 'secret'))).rejects.toThrow(RangeError);
  });

  it('otherwise generates one, persists it privately, and every later or concurrent caller gets the same', async () => {
    const file = join(dir, 'nested', 'url-secret');
    const all = await Promise.all(Array.from({ length: 8 }, () => resolveUrlSecret(undefined, file)));
    expect(new Set(all).size).toBe(1);
    expect(all[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(file, 'utf8').trim()).toBe(all[0]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await resolveUrlSecret('', file)).toBe(all[0]);
  });

  it('keeps the secret wherever the store says (a database row, for nodes without a shared disk)', async () => {
    let row: string | undefined;
    const insertIfAbsent = async (candidate: string): Promise<string> => (row ??= candidate);
    const first = await resolveUrlSecret(undefined, insertIfAbsent);
    expect(await resolveUrlSecret(undefined, insertIfAbsent)).toBe(first);
    await expect(resolveUrlSecret(undefined, async () => 'short')).rejects.toThrow(RangeError);
  });
});
