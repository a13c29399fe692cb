import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OutboundUrlError,
  checkOutboundUrl,
  classifyAddress,
  guardedFetch,
  redactUrl,
  redactUrlsInText,
  splitCredentials,
} from './url-guard.js';

async function refusal(promise: Promise<unknown>): Promise<OutboundUrlError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundUrlError) return error;
    throw error;
  }
  throw new Error('expected an OutboundUrlError, but the call succeeded');
}

describe('classifyAddress', () => {
  it.each([
    ['10.0.0.5', 'a private address'],
    ['172.16.3.4', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['127.0.0.1', 'a loopback address'],
    ['127.8.9.10', 'a loopback address'],
    ['169.254.169.254', 'the cloud metadata address'],
    ['169.254.1.1', 'a link-local address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['0.0.0.0', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fe80::1', 'a link-local address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['ff02::1', 'a multicast address'],
    // IPv6 spellings of IPv4 addresses end up at the IPv4 address, so they are judged by it.
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:169.254.169.254', 'the cloud metadata address'],
    ['::ffff:10.0.0.5', 'a private address'],
    ['64:ff9b::a00:5', 'a private address'],
    ['2002:a00:5::1', 'a private address'],
  ])('refuses %s as %s', (address, label) => {
    const verdict = classifyAddress(address);
    expect(verdict.public).toBe(false);
    expect(verdict.label).toBe(label);
  });

  it.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'accepts the public address %s',
    (address) => {
      expect(classifyAddress(address).public).toBe(true);
    },
  );

  it('refuses what is not an address at all', () => {
    expect(classifyAddress('not-an-ip').public).toBe(false);
  });
});

describe('checkOutboundUrl', () => {
  it.each([
    ['http://10.0.0.5/x', 'URL points to a private address (10.0.0.5); set QUIRE_ALLOW_LOCAL_URLS=true to allow it'],
    ['http://127.0.0.1:8080/', 'URL points to a loopback address (127.0.0.1)'],
    ['http://169.254.169.254/latest/meta-data/', 'URL points to the cloud metadata address (169.254.169.254)'],
    ['http://[::1]/', 'URL points to a loopback address (::1)'],
    ['http://[fe80::1]/', 'URL points to a link-local address (fe80::1)'],
    ['http://[fc00::1]/', 'URL points to a private address (fc00::1)'],
    ['http://[::ffff:127.0.0.1]/', 'URL points to a loopback address'],
    ['http://[::ffff:a9fe:a9fe]/', 'URL points to the cloud metadata address'],
    ['http://100.64.1.1/', 'carrier-grade NAT'],
    ['http://0.0.0.0:22/', 'an unspecified address'],
    ['http://224.0.0.1/', 'a multicast address'],
    // The URL parser normalizes these odd spellings to 127.0.0.1; the check must see the normalized host.
    ['http://2130706433/', 'a loopback address (127.0.0.1)'],
    ['http://0x7f.0.0.1/', 'a loopback address (127.0.0.1)'],
    ['http://127.1/', 'a loopback address (127.0.0.1)'],
    ['https://localhost:3000/', 'a loopback address (127.0.0.1) (the host "localhost" resolves to it)'],
  ])('refuses %s without allowLocal', async (url, message) => {
    const error = await refusal(checkOutboundUrl(url));
    expect(error.code).toBe('address-not-allowed');
    expect(error.status).toBe(400);
    expect(error.message).toContain(message);
    expect(error.message).toContain('QUIRE_ALLOW_LOCAL_URLS=true');
  });

  it.each(['http://10.0.0.5/x', 'http://127.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/', 'http://localhost/'])(
    'allows %s with allowLocal',
    async (url) => {
      const checked = await checkOutboundUrl(url, { allowLocal: true });
      expect(checked.addresses.length).toBeGreaterThan(0);
    },
  );

  it('allows a public address literal without allowLocal, without asking DNS', async () => {
    const resolve = async () => {
      throw new Error('an address literal must not be resolved');
    };
    const checked = await checkOutboundUrl('https://93.184.215.14/spec.yaml', { resolve });
    expect(checked.addresses).toEqual([{ address: '93.184.215.14', family: 4 }]);
  });

  it('refuses a name when any of its addresses is private, even if another is public', async () => {
    const resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const error = await refusal(checkOutboundUrl('https://mixed.example/', { resolve }));
    expect(error.message).toContain('private address (10.0.0.7) (the host "mixed.example" resolves to it)');
    const checked = await checkOutboundUrl('https://public.example/', {
      resolve: async () => [{ address: '93.184.215.14', family: 4 }],
    });
    expect(checked.addresses).toHaveLength(1);
  });

  it('allows only the listed ranges with allowedCidrs', async () => {
    await expect(checkOutboundUrl('http://10.1.2.3/', { allowedCidrs: ['10.1.2.0/24'] })).resolves.toBeDefined();
    const error = await refusal(checkOutboundUrl('http://10.1.3.3/', { allowedCidrs: ['10.1.2.0/24'] }));
    expect(error.code).toBe('address-not-allowed');
  });

  it.each(['ftp://example.com/x', 'gopher://example.com/', 'ssh://git@example.com/r.git', 'git://example.com/r', 'ext::sh -c id'])(
    'refuses the protocol of %s even with allowLocal',
    async (url) => {
      const error = await refusal(checkOutboundUrl(url, { allowLocal: true }));
      expect(['protocol-not-allowed', 'invalid-url']).toContain(error.code);
    },
  );

  it('refuses file URLs unless allowLocal', async () => {
    const error = await refusal(checkOutboundUrl('file:///etc/passwd'));
    expect(error.code).toBe('protocol-not-allowed');
    expect(error.message).toBe('File URLs are not allowed; set QUIRE_ALLOW_LOCAL_URLS=true to allow them');
    await expect(checkOutboundUrl('file:///etc/passwd', { allowLocal: true })).resolves.toMatchObject({ addresses: [] });
  });

  it('refuses relative paths and garbage as invalid URLs', async () => {
    expect((await refusal(checkOutboundUrl('/tmp/repo.git', { allowLocal: true }))).code).toBe('invalid-url');
    expect((await refusal(checkOutboundUrl('not a url'))).code).toBe('invalid-url');
  });

  it('reports names that do not resolve', async () => {
    const error = await refusal(checkOutboundUrl('https://does-not-exist.invalid/'));
    expect(error.code).toBe('dns-failed');
    expect(error.message).toContain('does-not-exist.invalid');
  });

  it('gives up on a resolver that does not answer', async () => {
    const error = await refusal(
      checkOutboundUrl('https://slow.example/', { resolve: () => new Promise(() => undefined), dnsTimeoutMs: 50 }),
    );
    expect(error.code).toBe('dns-failed');
    expect(error.message).toBe('Resolving the host "slow.example" took longer than 50 ms');
  });

  it('never repeats the credentials of the URL in its messages', async () => {
    const error = await refusal(checkOutboundUrl('ftp://alice:s3cret@example.com/'));
    const error2 = await refusal(checkOutboundUrl('http://alice:s3cret@/'));
    for (const e of [error, error2]) expect(e.message).not.toContain('s3cret');
  });
});

describe('redactUrl and splitCredentials', () => {
  it('removes user-info from URLs', () => {
    expect(redactUrl('https://alice:s3cret@git.example.com/o/r.git')).toBe('https://git.example.com/o/r.git');
    expect(redactUrl('https://token@git.example.com/r')).toBe('https://git.example.com/r');
    expect(redactUrl('https://git.example.com/r')).toBe('https://git.example.com/r');
  });

  it('removes user-info from text that is not one URL', () => {
    expect(redactUrl('oops https://alice:s3cret@x.example/r')).toBe('oops https://x.example/r');
    expect(redactUrlsInText("fatal: unable to access 'http://u:p@127.0.0.1:9/r.git/': refused")).toBe(
      "fatal: unable to access 'http://127.0.0.1:9/r.git/': refused",
    );
  });

  it('splits and decodes credentials', () => {
    expect(splitCredentials('https://alice:p%40ss%3Aword@git.example.com/o/r.git')).toEqual({
      url: 'https://git.example.com/o/r.git',
      username: 'alice',
      password: 'p@ss:word',
    });
    expect(splitCredentials('https://ghp_token@github.com/o/r.git')).toEqual({
      url: 'https://github.com/o/r.git',
      username: 'ghp_token',
    });
    expect(splitCredentials('https://github.com/o/r.git')).toEqual({ url: 'https://github.com/o/r.git' });
  });
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function startServer(handler: Handler): Promise<{ port: number; base: string; requests: IncomingMessage[]; close(): Promise<void> }> {
  const requests: IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('guardedFetch against a local server', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let other: Awaited<ReturnType<typeof startServer>>;
  let streamed = 0;
  let tmp: string;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'quire-guard-'));
    other = await startServer((req, res) => {
      res.end(JSON.stringify({ authorization: req.headers.authorization ?? null }));
    });
    server = await startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      switch (url.pathname) {
        case '/hello':
          res.end(`hello ${req.headers.host} ${req.headers.authorization ?? 'anonymous'}`);
          return;
        case '/redirect-local':
          res.writeHead(302, { location: '/hello' }).end();
          return;
        case '/redirect-private':
          res.writeHead(302, { location: 'http://10.0.0.5/internal' }).end();
          return;
        case '/redirect-metadata':
          res.writeHead(307, { location: 'http://[::ffff:169.254.169.254]/latest/meta-data/' }).end();
          return;
        case '/redirect-file':
          res.writeHead(301, { location: 'file:///etc/passwd' }).end();
          return;
        case '/redirect-other':
          res.writeHead(302, { location: `${other.base}/whoami` }).end();
          return;
        case '/loop':
          res.writeHead(302, { location: '/loop' }).end();
          return;
        case '/declared-large':
          res.writeHead(200, { 'content-length': String(5 * 1024 * 1024) });
          res.write(Buffer.alloc(1024));
          return;
        case '/stream': {
          // Chunked, no length: only counting while reading can stop it. Writes stop once the client is gone.
          streamed = 0;
          res.writeHead(200);
          const chunk = Buffer.alloc(64 * 1024, 120);
          const pump = () => {
            while (streamed < 64 * 1024 * 1024 && !res.destroyed) {
              streamed += chunk.length;
              if (!res.write(chunk)) {
                res.once('drain', pump);
                return;
              }
            }
            res.end();
          };
          pump();
          return;
        }
        case '/slow':
          res.writeHead(200);
          res.write('partial');
          return; // never ends
        case '/stall':
          return; // never answers
        default:
          res.writeHead(404).end('missing');
      }
    });
  });

  afterAll(async () => {
    await server.close();
    await other.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('refuses the loopback server without allowLocal, before any connection', async () => {
    const before = server.requests.length;
    const error = await refusal(guardedFetch(`${server.base}/hello`));
    expect(error.code).toBe('address-not-allowed');
    expect(error.message).toContain('loopback address (127.0.0.1)');
    expect(server.requests.length).toBe(before);
  });

  it('fetches it with allowLocal and returns non-2xx answers as they are', async () => {
    const ok = await guardedFetch(`${server.base}/hello`, { allowLocal: true });
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe(`hello 127.0.0.1:${server.port} anonymous`);
    const missing = await guardedFetch(`${server.base}/nothing`, { allowLocal: true });
    expect(missing.status).toBe(404);
  });

  it('follows a redirect it may follow', async () => {
    const response = await guardedFetch(`${server.base}/redirect-local`, { allowedCidrs: ['127.0.0.1/32'] });
    expect(response.redirects).toBe(1);
    expect(response.url).toBe(`${server.base}/hello`);
    expect(response.body.toString()).toContain('hello');
  });

  it('refuses a redirect to a private address', async () => {
    // The server itself is allowed (allowedCidrs), so only the redirect's target can be the reason.
    const error = await refusal(guardedFetch(`${server.base}/redirect-private`, { allowedCidrs: ['127.0.0.1/32'] }));
    expect(error.code).toBe('address-not-allowed');
    expect(error.message).toBe(
      `Redirect from ${server.base}/redirect-private to http://10.0.0.5/internal refused: ` +
        'URL points to a private address (10.0.0.5); set QUIRE_ALLOW_LOCAL_URLS=true to allow it',
    );
  });

  it('refuses a redirect to the metadata address spelled as IPv4-mapped IPv6', async () => {
    const error = await refusal(guardedFetch(`${server.base}/redirect-metadata`, { allowedCidrs: ['127.0.0.1/32'] }));
    expect(error.message).toContain('the cloud metadata address');
  });

  it('never follows a redirect to a file URL, even with allowLocal', async () => {
    const error = await refusal(guardedFetch(`${server.base}/redirect-file`, { allowLocal: true }));
    expect(error.code).toBe('protocol-not-allowed');
  });

  it('stops after maxRedirects', async () => {
    const error = await refusal(guardedFetch(`${server.base}/loop`, { allowLocal: true, maxRedirects: 3 }));
    expect(error.code).toBe('too-many-redirects');
    expect(error.message).toContain('more than 3 times');
  });

  it('sends URL credentials as basic auth to their origin only, and never reports them', async () => {
    const response = await guardedFetch(`http://alice:s3cret@127.0.0.1:${server.port}/hello`, { allowLocal: true });
    expect(response.body.toString()).toContain(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
    expect(response.url).not.toContain('s3cret');
    const redirected = await guardedFetch(`http://alice:s3cret@127.0.0.1:${server.port}/redirect-other`, {
      allowLocal: true,
    });
    expect(JSON.parse(redirected.body.toString())).toEqual({ authorization: null });
  });

  it('refuses a body whose declared length is over maxBytes', async () => {
    const error = await refusal(guardedFetch(`${server.base}/declared-large`, { allowLocal: true, maxBytes: 1024 * 1024 }));
    expect(error.code).toBe('too-large');
    expect(error.message).toContain('larger than the limit of 1048576 bytes');
  });

  it('aborts a streamed body once it passes maxBytes, long before the server is done', async () => {
    const error = await refusal(guardedFetch(`${server.base}/stream`, { allowLocal: true, maxBytes: 1024 * 1024 }));
    expect(error.code).toBe('too-large');
    // Give the server a moment to notice the closed socket, then check it was cut off early (of 64 MiB).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streamed).toBeLessThan(16 * 1024 * 1024);
  });

  it('gives up on a body that never ends', async () => {
    const started = Date.now();
    const error = await refusal(guardedFetch(`${server.base}/slow`, { allowLocal: true, timeoutMs: 300 }));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('longer than the limit of 300 ms');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('gives up on a server that never answers', async () => {
    const error = await refusal(guardedFetch(`${server.base}/stall`, { allowLocal: true, timeoutMs: 300 }));
    expect(error.code).toBe('timeout');
  });

  it('connects to the address it checked, not to what DNS says afterwards', async () => {
    // A rebinding resolver: a harmless answer for the check, then a forbidden one. If the connection asked
    // DNS again it would go to 10.255.255.1 (and fail); pinned, it reaches the checked 127.0.0.1 server.
    const answers = ['127.0.0.1', '10.255.255.1'];
    let calls = 0;
    const resolve = async () => [{ address: answers[Math.min(calls++, 1)] ?? '10.255.255.1', family: 4 }];
    const response = await guardedFetch(`http://rebind.test:${server.port}/hello`, {
      allowedCidrs: ['127.0.0.1/32'],
      resolve,
      timeoutMs: 3000,
    });
    expect(response.body.toString()).toBe(`hello rebind.test:${server.port} anonymous`);
    expect(calls).toBe(1);
  });

  it('reads file URLs only with allowLocal, within maxBytes', async () => {
    const path = join(tmp, 'spec.yaml');
    await writeFile(path, 'openapi: 3.1.0\n');
    const url = pathToFileURL(path).href;
    expect((await refusal(guardedFetch(url))).code).toBe('protocol-not-allowed');
    const response = await guardedFetch(url, { allowLocal: true });
    expect(response.body.toString()).toBe('openapi: 3.1.0\n');
    expect((await refusal(guardedFetch(url, { allowLocal: true, maxBytes: 4 }))).code).toBe('too-large');
  });
});
