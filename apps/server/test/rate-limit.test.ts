import { createQuireClient, QuireApiError, unwrap } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './helpers.js';

// The limiter keeps its counts in the process, so one SQLite server is enough to test it.
describe('rate limiting', () => {
  const server = useTestServer({ env: { QUIRE_RATE_LIMIT: '3' } });

  it('answers 429 with Retry-After past the limit, per caller, and reports the budget on every answer', async () => {
    const first = await server.bootstrap('Limited org');
    const second = await server.bootstrap('Other org');
    const noRetry = (token: string) => createQuireClient({ baseUrl: server.url, token, retry: false });

    const remaining: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { response } = await noRetry(first.token).GET('/user');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('3');
      remaining.push(response.headers.get('ratelimit-remaining') ?? '');
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const { response, error } = await noRetry(first.token).GET('/user');
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(error).toEqual({ error: { code: 429, message: expect.stringMatching(/^Too many requests, retry after \d+ seconds$/) } });

    // Another caller has its own budget.
    expect((await noRetry(second.token).GET('/user')).response.status).toBe(200);
  });

  it('limits unauthenticated requests by client address', async () => {
    const anonymous = createQuireClient({ baseUrl: server.url, retry: false });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await anonymous.GET('/user')).response.status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    await expect(unwrap(anonymous.GET('/user'))).rejects.toBeInstanceOf(QuireApiError);
  });
});

describe('rate limiting of refused tokens', () => {
  const server = useTestServer({ env: { QUIRE_RATE_LIMIT: '3' } });

  it('counts each refused token against the client address, so made-up tokens buy no new budget', async () => {
    const owner = await server.bootstrap('Guessed org');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const guess = createQuireClient({ baseUrl: server.url, token: `made-up-token-${i}`, retry: false });
      statuses.push((await guess.GET('/user')).response.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    // The address is out of budget, so even a real token from it waits until the window ends.
    const { response } = await createQuireClient({ baseUrl: server.url, token: owner.token, retry: false }).GET('/user');
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
