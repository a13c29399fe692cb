import { createQuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { freePort } from './built.js';
import { useTestServer } from './helpers.js';

/*
 * `/metrics` (issue 26): off unless configured, refused without its token, and in the Prometheus text format
 * with the names the server README lists. The server's Redis is a port nothing listens on, so the same server
 * shows that a shared rate-limit store that is down costs no request a 500: counts fall back to memory (still
 * limited) and each fallback is counted in `/metrics`. Nothing here depends on the dialect: SQLite only.
 */

const TOKEN = 'metrics-token-for-this-test-0123456789';
const LIMIT = 5;

describe('/metrics', async () => {
  const deadRedisPort = await freePort();
  const server = useTestServer({
    env: {
      QUIRE_METRICS_TOKEN: TOKEN,
      QUIRE_METRICS_PORT: '0',
      QUIRE_RATE_LIMIT: String(LIMIT),
      QUIRE_REDIS_URL: `redis://127.0.0.1:${deadRedisPort}`,
    },
  });
  const scrape = (base: string, token?: string) => fetch(`${base}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it('is refused without the token, or with another, in the API error shape', async () => {
    for (const token of [undefined, 'not-the-metrics-token-at-all']) {
      const response = await scrape(server.url, token);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toEqual({ error: { code: 401, message: expect.any(String) } });
    }
  });

  it('counts requests by operationId and status, with the job queue, the event loop and store failures', async () => {
    const owner = await server.bootstrap('Metrics org');
    const client = createQuireClient({ baseUrl: server.url, token: owner.token, retry: false });
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push((await client.GET('/user')).response.status);
    // Redis is down, so the limit is counted in memory: still enforced, and never a 500.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

    const response = await scrape(server.url, TOKEN);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^quire_http_request_duration_seconds_count\{operationId="getAuthenticatedUser",status="200"\} 5$/m);
    expect(text).toMatch(/^quire_http_request_duration_seconds_count\{operationId="getAuthenticatedUser",status="429"\} 1$/m);
    expect(text).toMatch(/^quire_http_request_duration_seconds_bucket\{le="0\.1",operationId="getAuthenticatedUser",status="200"\} \d+$/m);
    expect(text).toMatch(/^quire_rate_limit_store_failures_total\{store="redis"\} [1-9]\d*$/m);
    expect(text).toMatch(/^# TYPE quire_jobs gauge$/m);
    expect(text).toMatch(/^# TYPE quire_jobs_oldest_age_seconds gauge$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it('is also served on its own listener (QUIRE_METRICS_PORT), with the token there too', async () => {
    const metricsUrl = server.running.metricsUrl!;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await scrape(metricsUrl)).status).toBe(401);
    const response = await scrape(metricsUrl, TOKEN);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^# TYPE quire_http_request_duration_seconds histogram$/m);
    expect((await fetch(`${metricsUrl}/v1/user`)).status).toBe(404);
  });
});

describe('/metrics unconfigured', () => {
  const server = useTestServer({});

  it('is not served at all', async () => {
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    expect(server.running.metricsUrl).toBeUndefined();
  });
});
