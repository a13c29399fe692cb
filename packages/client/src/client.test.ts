import { describe, expect, it } from 'vitest';
import { apiBaseUrl, createQuireClient, paginate, parseRetryAfter, QuireApiError, unwrap } from './index.js';

type Handler = (request: Request) => Response | Promise<Response>;

/** A fetch double that records every request it is given and answers with the handler. */
function fakeFetch(handler: Handler) {
  const requests: Request[] = [];
  const fetch = async (request: Request) => {
    requests.push(request.clone());
    return handler(request);
  };
  return { fetch, requests };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const user = { object: 'user', id: 'u1', displayName: 'Ada', urls: { location: 'http://q/v1/users/u1' } };

describe('createQuireClient', () => {
  it('sends the bearer token and resolves paths under /v1', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, user));
    const client = createQuireClient({ baseUrl: 'http://quire.test/', token: 'secret-token', fetch });
    const me = await unwrap(client.GET('/user'));
    expect(me.displayName).toBe('Ada');
    expect(requests[0]!.url).toBe('http://quire.test/v1/user');
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer secret-token');
  });

  it('sends no Authorization header without a token', async () => {
    const { fetch, requests } = fakeFetch(() => json(401, { error: { code: 401, message: 'A valid bearer token is required' } }));
    const client = createQuireClient({ baseUrl: 'http://quire.test', fetch });
    await expect(unwrap(client.GET('/user'))).rejects.toBeInstanceOf(QuireApiError);
    expect(requests[0]!.headers.has('authorization')).toBe(false);
  });

  it('keeps a base URL that already ends in /v1', () => {
    expect(apiBaseUrl('https://docs.example.org/v1/')).toBe('https://docs.example.org/v1');
    expect(apiBaseUrl('https://docs.example.org/quire')).toBe('https://docs.example.org/quire/v1');
  });
});

describe('unwrap', () => {
  it('throws a typed error carrying status, code and message of the error body', async () => {
    const { fetch } = fakeFetch(() => json(404, { error: { code: 404, message: 'No space matches this id' } }));
    const client = createQuireClient({ baseUrl: 'http://quire.test', token: 't', fetch });
    const error = await unwrap(client.GET('/user')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuireApiError);
    expect(error).toMatchObject({ status: 404, code: 404, message: 'No space matches this id' });
  });

  it('falls back to the status text when the body is not an API error', async () => {
    const { fetch } = fakeFetch(() => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    const client = createQuireClient({ baseUrl: 'http://quire.test', token: 't', fetch, retry: false });
    await expect(unwrap(client.GET('/user'))).rejects.toMatchObject({ status: 502, code: 502, message: 'Bad Gateway' });
  });
});

describe('paginate', () => {
  it('follows next.page until the last page', async () => {
    const pages: Record<string, unknown> = {
      '': { items: [{ id: 'a' }, { id: 'b' }], next: { page: 'p2' }, count: 5 },
      p2: { items: [{ id: 'c' }, { id: 'd' }], next: { page: 'p3' }, count: 5 },
      p3: { items: [{ id: 'e' }], count: 5 },
    };
    const { fetch, requests } = fakeFetch((request) => json(200, pages[new URL(request.url).searchParams.get('page') ?? '']));
    const client = createQuireClient({ baseUrl: 'http://quire.test', token: 't', fetch });
    const ids: string[] = [];
    for await (const org of paginate((page) => client.GET('/orgs', { params: { query: { page, limit: 2 } } }))) ids.push(org.id);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(requests.map((r) => new URL(r.url).search)).toEqual(['?limit=2', '?page=p2&limit=2', '?page=p3&limit=2']);
  });

  it('throws when a page fails', async () => {
    const { fetch } = fakeFetch(() => json(403, { error: { code: 403, message: 'Forbidden' } }));
    const client = createQuireClient({ baseUrl: 'http://quire.test', token: 't', fetch });
    const iterate = async () => { for await (const _ of paginate((page) => client.GET('/orgs', { params: { query: { page } } }))) void _; };
    await expect(iterate()).rejects.toMatchObject({ status: 403 });
  });
});

describe('retries', () => {
  it('retries 429 after the delay of Retry-After and resends the body', async () => {
    let calls = 0;
    const { fetch, requests } = fakeFetch(() => (++calls === 1
      ? json(429, { error: { code: 429, message: 'slow down' } }, { 'retry-after': '2' })
      : json(201, { object: 'collection', id: 'c1' })));
    const waits: number[] = [];
    const client = createQuireClient({
      baseUrl: 'http://quire.test', token: 't', fetch,
      retry: { sleep: async (ms) => { waits.push(ms); } },
    });
    const result = await client.POST('/orgs/{organizationId}/collections', {
      params: { path: { organizationId: 'o1' } }, body: { title: 'Guides' },
    });
    expect(result.response.status).toBe(201);
    expect(waits).toEqual([2000]);
    expect(requests).toHaveLength(2);
    expect(await requests[1]!.json()).toEqual({ title: 'Guides' });
  });

  it('backs off exponentially on 503 without Retry-After and gives up after the last retry', async () => {
    const { fetch, requests } = fakeFetch(() => json(503, { error: { code: 503, message: 'unavailable' } }));
    const waits: number[] = [];
    const client = createQuireClient({
      baseUrl: 'http://quire.test', token: 't', fetch,
      retry: { retries: 2, baseDelayMs: 100, sleep: async (ms) => { waits.push(ms); } },
    });
    await expect(unwrap(client.GET('/user'))).rejects.toMatchObject({ status: 503, message: 'unavailable' });
    expect(requests).toHaveLength(3);
    expect(waits).toEqual([100, 200]);
  });

  it('caps a long Retry-After at maxDelayMs and does not retry other errors', async () => {
    let calls = 0;
    const { fetch } = fakeFetch(() => (++calls === 1 ? json(429, {}, { 'retry-after': '3600' }) : json(400, { error: { code: 400, message: 'bad' } })));
    const waits: number[] = [];
    const client = createQuireClient({ baseUrl: 'http://quire.test', token: 't', fetch, retry: { maxDelayMs: 5000, sleep: async (ms) => { waits.push(ms); } } });
    await expect(unwrap(client.GET('/user'))).rejects.toMatchObject({ status: 400 });
    expect(waits).toEqual([5000]);
    expect(calls).toBe(2);
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
