/**
 * The one guard for server-side fetches of user-supplied URLs (OpenAPI sources, Git remotes, file URLs):
 * DESIGN.md section 6. Everything that reaches out to a URL a user typed goes through `checkOutboundUrl`
 * (Git, which connects by itself) or `guardedFetch` (everything fetched in-process).
 *
 * The threat is SSRF: a URL that makes the server talk to itself, its private network or the cloud metadata
 * endpoint. So: an allow-list of protocols, every resolved address checked (a name with one public and one
 * private address is refused, since the connection could pick either), each redirect re-checked, the
 * connection pinned to the addresses that were checked (a DNS answer that changes between the check and the
 * connect, "DNS rebinding", cannot slip through), and limits on size and time.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { open } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';

export type OutboundUrlErrorCode =
  | 'invalid-url'
  | 'protocol-not-allowed'
  | 'address-not-allowed'
  | 'dns-failed'
  | 'connection-failed'
  | 'too-many-redirects'
  | 'too-large'
  | 'timeout';

/**
 * A URL the server refuses to fetch, or a fetch that broke a limit. Messages are meant for the person who
 * sent the URL (the HTTP layer answers them with 400) and never contain credentials.
 */
export class OutboundUrlError extends Error {
  override readonly name = 'OutboundUrlError';
  /** The HTTP status the API answers for it: the URL in the request is the problem. */
  readonly status = 400;
  readonly code: OutboundUrlErrorCode;

  constructor(code: OutboundUrlErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface GuardOptions {
  /** QUIRE_ALLOW_LOCAL_URLS: allow `file:` URLs and every address (single-machine installs, tests). */
  allowLocal?: boolean;
  /**
   * Address ranges allowed even without `allowLocal` (CIDR, e.g. `10.1.2.0/24` for an internal Git server).
   * Narrower than `allowLocal`: file URLs and every other local address stay refused.
   */
  allowedCidrs?: readonly string[];
  /** How host names are resolved; defaults to the system resolver (dns.lookup, all addresses). */
  resolve?: Resolver;
  /** Time allowed for resolving the host name. Default 10 s. */
  dnsTimeoutMs?: number;
}

export interface CheckedUrl {
  url: URL;
  /** The addresses the host resolved to, all of them checked; empty for `file:` URLs. Connect only to these. */
  addresses: LookupAddress[];
}

const LOCAL_HINT = 'set QUIRE_ALLOW_LOCAL_URLS=true to allow it';

/** What the address ranges that are not plain public unicast are called in error messages. */
const RANGE_LABELS: Record<string, string> = {
  private: 'a private address',
  uniqueLocal: 'a private address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
};

export interface AddressClass {
  /** Whether a URL may point to this address without `allowLocal`. */
  public: boolean;
  /** The ipaddr.js range name (`unicast`, `private`, `loopback`, ...), of the embedded IPv4 when there is one. */
  range: string;
  /** Words for error messages: "a private address". */
  label: string;
}

/**
 * Classifies an IP address. Deny by default: only what ipaddr.js calls plain `unicast` is public, so ranges
 * it knows as special (documentation, benchmarking, 6to4 relays, Teredo, ...) are refused along with the
 * private ones. IPv6 forms that embed an IPv4 address (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4)
 * are judged by that IPv4 address, since that is where the packets end up.
 */
export function classifyAddress(address: string): AddressClass {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return { public: false, range: 'invalid', label: 'an invalid address' };
  }
  const embedded = embeddedIPv4(parsed);
  if (embedded) parsed = embedded;
  const range = parsed.range();
  if (range === 'unicast') return { public: true, range, label: 'a public address' };
  if (parsed.kind() === 'ipv4' && range === 'linkLocal' && parsed.toString() === '169.254.169.254') {
    return { public: false, range, label: 'the cloud metadata address' };
  }
  return { public: false, range, label: RANGE_LABELS[range] ?? `a special-purpose address (${range})` };
}

function embeddedIPv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  const [p0 = 0, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = v6.parts;
  const fromWords = (high: number, low: number) =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (range === 'ipv4Mapped' || range === 'rfc6052') return fromWords(p6, p7);
  if (range === '6to4' && p0 === 0x2002) return fromWords(p1, p2);
  return undefined;
}

function isInCidrs(address: string, cidrs: readonly string[]): boolean {
  if (cidrs.length === 0) return false;
  let parsed = ipaddr.parse(address);
  parsed = embeddedIPv4(parsed) ?? parsed;
  return cidrs.some((cidr) => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    return network.kind() === parsed.kind() && parsed.match([network, bits]);
  });
}

function parseUrl(input: string | URL): URL {
  if (input instanceof URL) return new URL(input.href);
  try {
    return new URL(input);
  } catch {
    throw new OutboundUrlError('invalid-url', `"${redactUrl(input)}" is not a valid absolute URL`);
  }
}

/** The host of a URL as an address or name, without the brackets of IPv6 literals. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses);
    });
  });

/**
 * Checks that a URL may be fetched by the server: protocol, then every address its host resolves to.
 * Returns the checked addresses, which the caller must connect to (and to nothing else).
 */
export async function checkOutboundUrl(input: string | URL, options: GuardOptions = {}): Promise<CheckedUrl> {
  const url = parseUrl(input);
  const allowLocal = options.allowLocal === true;
  if (url.protocol === 'file:') {
    if (!allowLocal) {
      throw new OutboundUrlError('protocol-not-allowed', 'File URLs are not allowed; set QUIRE_ALLOW_LOCAL_URLS=true to allow them');
    }
    return { url, addresses: [] };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OutboundUrlError(
      'protocol-not-allowed',
      `URL scheme "${url.protocol.replace(/:$/, '')}" is not allowed; use https or http`,
    );
  }
  const host = bareHost(url);
  if (host === '') throw new OutboundUrlError('invalid-url', `"${redactUrl(url)}" has no host`);

  let addresses: LookupAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    const dnsTimeoutMs = options.dnsTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new OutboundUrlError('dns-failed', `Resolving the host "${host}" took longer than ${dnsTimeoutMs} ms`)),
        dnsTimeoutMs,
      );
    });
    try {
      // dns.lookup cannot be cancelled; the race only stops waiting for it.
      addresses = await Promise.race([(options.resolve ?? systemResolver)(host), timeout]);
    } catch (error) {
      if (error instanceof OutboundUrlError) throw error;
      throw new OutboundUrlError('dns-failed', `Could not resolve the host "${host}"`);
    } finally {
      clearTimeout(timer);
    }
    if (addresses.length === 0) throw new OutboundUrlError('dns-failed', `The host "${host}" has no address`);
  }

  if (!allowLocal) {
    const cidrs = options.allowedCidrs ?? [];
    for (const { address } of addresses) {
      const verdict = classifyAddress(address);
      if (verdict.public || isInCidrs(address, cidrs)) continue;
      const where = isIP(host) !== 0 ? '' : ` (the host "${host}" resolves to it)`;
      throw new OutboundUrlError('address-not-allowed', `URL points to ${verdict.label} (${address})${where}; ${LOCAL_HINT}`);
    }
  }
  return { url, addresses };
}

/** The URL without its user-info part (`user:password@`); text that is not a URL loses anything like one. */
export function redactUrl(input: string | URL): string {
  try {
    const url = new URL(input instanceof URL ? input.href : input);
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return redactUrlsInText(String(input));
  }
}

/** Removes the user-info part of every URL-looking substring of a text (error output, log lines). */
export function redactUrlsInText(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@'"<>]*@/gi, '$1');
}

export interface SplitUrl {
  /** The URL without credentials: what may be stored, logged and answered. */
  url: string;
  /** Decoded user name and password, when the URL carried them. */
  username?: string;
  password?: string;
}

/** Separates the credentials a URL carries (`https://user:token@host/...`) from the URL itself. */
export function splitCredentials(input: string | URL): SplitUrl {
  const url = parseUrl(input);
  const username = url.username === '' ? undefined : safeDecode(url.username);
  const password = url.password === '' ? undefined : safeDecode(url.password);
  url.username = '';
  url.password = '';
  const result: SplitUrl = { url: url.href };
  if (username !== undefined) result.username = username;
  if (password !== undefined) result.password = password;
  return result;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A `lookup` for sockets that answers only with addresses already checked, never asking DNS again. */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const candidates = family === undefined ? [...addresses] : addresses.filter((a) => a.family === family);
    const first = candidates[0];
    if (!first) {
      const error = Object.assign(new Error(`No checked address of ${hostname} fits the connection`), { code: 'ENOTFOUND' });
      callback(error, '', 0);
      return;
    }
    if (options.all) callback(null, candidates);
    else callback(null, first.address, first.family);
  };
}

export interface FetchOptions extends GuardOptions {
  /** Largest body accepted, in bytes; longer answers are aborted. Default 10 MiB. */
  maxBytes?: number;
  /** Time for the whole fetch, redirects and body included. Default 30 s. */
  timeoutMs?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  headers?: Record<string, string>;
}

export interface GuardedResponse {
  /** The URL that answered, after redirects, without credentials. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  redirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GET a user-supplied URL under the guard. Redirects are followed here, not by the HTTP client, so that
 * each hop is checked like the first; credentials embedded in the URL are sent as basic authentication to
 * the origin that carried them and dropped when a redirect leaves it. Non-2xx answers are returned, not
 * thrown: what a 404 means is the caller's business.
 */
export async function guardedFetch(input: string | URL, options: FetchOptions = {}): Promise<GuardedResponse> {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const first = splitCredentials(input);
  const authOrigin = new URL(first.url).origin;
  const authorization =
    first.username !== undefined || first.password !== undefined
      ? `Basic ${Buffer.from(`${first.username ?? ''}:${first.password ?? ''}`).toString('base64')}`
      : undefined;
  let current = new URL(first.url);

  const timedOut = () =>
    new OutboundUrlError('timeout', `Fetching ${redactUrl(input)} took longer than the limit of ${timeoutMs} ms`);
  try {
    for (let redirects = 0; ; redirects += 1) {
      const checked = await abortable(checkOutboundUrl(current, options), controller.signal);
      if (checked.url.protocol === 'file:') {
        // Only the URL the user gave may be a file: a remote server must never steer us onto the disk.
        if (redirects > 0) {
          throw new OutboundUrlError('protocol-not-allowed', `Redirect from ${redactUrl(input)} to a file URL refused`);
        }
        const body = await readFileLimited(checked.url, maxBytes);
        return { url: checked.url.href, status: 200, headers: {}, body, redirects };
      }
      const headers: Record<string, string> = {
        'user-agent': 'Quire',
        accept: '*/*',
        // Compressed answers could inflate far past maxBytes after the check; ask for none.
        'accept-encoding': 'identity',
        ...options.headers,
      };
      if (authorization && checked.url.origin === authOrigin) headers.authorization = authorization;
      const response = await request(checked, headers, controller.signal);
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
        response.destroy();
        if (redirects >= maxRedirects) {
          throw new OutboundUrlError(
            'too-many-redirects',
            `${redactUrl(input)} redirects more than ${maxRedirects} times`,
          );
        }
        let next: URL;
        try {
          next = new URL(location, checked.url);
        } catch {
          throw new OutboundUrlError('invalid-url', `${redactUrl(checked.url)} redirects to an invalid URL`);
        }
        // Checked here too (not only at the top of the loop) to say in the message that a redirect was refused.
        try {
          await abortable(checkOutboundUrl(next, options), controller.signal);
        } catch (error) {
          if (error instanceof OutboundUrlError && error.code !== 'timeout') {
            throw new OutboundUrlError(
              error.code,
              `Redirect from ${redactUrl(checked.url)} to ${redactUrl(next)} refused: ${error.message}`,
            );
          }
          throw error;
        }
        current = next;
        continue;
      }
      const body = await readBodyLimited(response, maxBytes, checked.url);
      return {
        url: redactUrl(checked.url),
        status: response.statusCode ?? 0,
        headers: response.headers,
        body,
        redirects,
      };
    }
  } catch (error) {
    if (controller.signal.aborted) throw timedOut();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function request(checked: CheckedUrl, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  const { url, addresses } = checked;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: bareHost(url),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, ...headers },
        // A fresh agent-less socket whose only way to an address is the checked list.
        agent: false,
        lookup: pinnedLookup(addresses),
        signal,
      },
      resolve,
    );
    req.on('error', (error) => {
      if (signal.aborted) reject(error);
      else reject(new OutboundUrlError('connection-failed', `Could not fetch ${redactUrl(url)}: ${error.message}`));
    });
    req.end();
  });
}

function tooLarge(url: URL, maxBytes: number): OutboundUrlError {
  return new OutboundUrlError('too-large', `${redactUrl(url)} is larger than the limit of ${maxBytes} bytes`);
}

function readBodyLimited(response: IncomingMessage, maxBytes: number, url: URL): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(tooLarge(url, maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    response.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        // Stop reading at once: the limit is about what the server holds in memory, not what it keeps.
        response.destroy();
        reject(tooLarge(url, maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
    response.on('close', () => {
      if (!response.complete) reject(new OutboundUrlError('connection-failed', `${redactUrl(url)} closed the connection early`));
    });
  });
}

async function readFileLimited(url: URL, maxBytes: number): Promise<Buffer> {
  const handle = await open(fileURLToPath(url), 'r').catch(() => {
    throw new OutboundUrlError('connection-failed', `Could not read ${url.href}`);
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new OutboundUrlError('connection-failed', `${url.href} is not a file`);
    if (stat.size > maxBytes) throw tooLarge(url, maxBytes);
    // Read one byte past the limit, so a file that grows after the stat is still caught.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes) throw tooLarge(url, maxBytes);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
