import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, processCount } from './config.js';

describe('mail server configuration', () => {
  it('is off without QUIRE_SMTP_URL, and takes a URL with its sender', () => {
    expect(loadConfig({}).smtp).toBeUndefined();
    expect(loadConfig({ QUIRE_SMTP_URL: 'smtps://user:pass@mail.example.com:465', QUIRE_SMTP_FROM: 'Quire <quire@example.com>' }).smtp)
      .toEqual({ url: 'smtps://user:pass@mail.example.com:465', from: 'Quire <quire@example.com>' });
  });

  it('refuses at start what could not send: another protocol, no sender, or a sender without a server', () => {
    expect(() => loadConfig({ QUIRE_SMTP_URL: 'http://mail.example.com', QUIRE_SMTP_FROM: 'q@example.com' })).toThrow(/must start with smtp:\/\/ or smtps:\/\//);
    expect(() => loadConfig({ QUIRE_SMTP_URL: 'not a url', QUIRE_SMTP_FROM: 'q@example.com' })).toThrow(/QUIRE_SMTP_URL must be a URL/);
    expect(() => loadConfig({ QUIRE_SMTP_URL: 'smtp://mail.example.com' })).toThrow(/QUIRE_SMTP_FROM .* is required/);
    expect(() => loadConfig({ QUIRE_SMTP_FROM: 'q@example.com' })).toThrow(/QUIRE_SMTP_URL is not/);
  });
});

const client = { QUIRE_OIDC_ISSUER: 'https://id.example.com', QUIRE_OIDC_CLIENT_ID: 'quire', QUIRE_OIDC_CLIENT_SECRET: 's3cret' };

describe('loadConfig: OpenID Connect', () => {
  it('is off unless configured, and takes the provider with its defaults', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
    expect(loadConfig(client).oidc).toEqual({
      issuer: 'https://id.example.com', clientId: 'quire', clientSecret: 's3cret', name: 'id.example.com',
      allowedDomains: [], defaultRole: 'read', allowInsecureIssuer: false,
    });
    expect(loadConfig({ ...client, QUIRE_OIDC_NAME: 'Acme SSO', QUIRE_OIDC_ALLOWED_DOMAINS: ' Example.com, docs.example.org ', QUIRE_OIDC_ORGANIZATION: 'org1', QUIRE_OIDC_DEFAULT_ROLE: 'edit' }).oidc)
      .toMatchObject({ name: 'Acme SSO', allowedDomains: ['example.com', 'docs.example.org'], organizationId: 'org1', defaultRole: 'edit' });
  });

  it('refuses a partial or unsafe configuration at start', () => {
    expect(() => loadConfig({ QUIRE_OIDC_ISSUER: client.QUIRE_OIDC_ISSUER })).toThrow(/set together/);
    expect(() => loadConfig({ ...client, QUIRE_OIDC_CLIENT_SECRET: '' })).toThrow(/set together/);
    expect(() => loadConfig({ ...client, QUIRE_OIDC_ISSUER: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...client, QUIRE_OIDC_ISSUER: 'http://id.example.com' })).toThrow(/https/);
    // Plain HTTP only for a provider on this machine, and only where local URLs are allowed.
    expect(() => loadConfig({ ...client, QUIRE_OIDC_ISSUER: 'http://127.0.0.1:9000' })).toThrow(/https/);
    expect(loadConfig({ ...client, QUIRE_OIDC_ISSUER: 'http://127.0.0.1:9000', QUIRE_ALLOW_LOCAL_URLS: 'true' }).oidc?.allowInsecureIssuer).toBe(true);
    expect(() => loadConfig({ ...client, QUIRE_OIDC_ISSUER: 'http://10.0.0.1', QUIRE_ALLOW_LOCAL_URLS: 'true' })).toThrow(/https/);
    expect(() => loadConfig({ ...client, QUIRE_OIDC_ALLOWED_DOMAINS: 'example.com,*.evil' })).toThrow(/e-mail domains/);
    expect(() => loadConfig({ ...client, QUIRE_OIDC_DEFAULT_ROLE: 'owner' })).toThrow(/QUIRE_OIDC_DEFAULT_ROLE/);
  });
});

describe('loadConfig: shared rate limits and metrics', () => {
  it('takes a redis:// or rediss:// QUIRE_REDIS_URL, with a key prefix, and refuses anything else at start', () => {
    expect(loadConfig({}).redis).toBeUndefined();
    expect(loadConfig({ QUIRE_REDIS_URL: 'redis://127.0.0.1:6379' }).redis).toEqual({ url: 'redis://127.0.0.1:6379', keyPrefix: 'quire:' });
    expect(loadConfig({ QUIRE_REDIS_URL: 'rediss://u:p@redis.example.com:6380/2', QUIRE_REDIS_KEY_PREFIX: 'docs:' }).redis)
      .toEqual({ url: 'rediss://u:p@redis.example.com:6380/2', keyPrefix: 'docs:' });
    expect(() => loadConfig({ QUIRE_REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/QUIRE_REDIS_URL must start with redis:\/\/ or rediss:\/\//);
    expect(() => loadConfig({ QUIRE_REDIS_URL: '127.0.0.1:6379' })).toThrow(ConfigError);
    expect(() => loadConfig({ QUIRE_REDIS_URL: 'redis://x', QUIRE_REDIS_KEY_PREFIX: 'has space' })).toThrow(/QUIRE_REDIS_KEY_PREFIX/);
    expect(() => loadConfig({ QUIRE_REDIS_KEY_PREFIX: 'docs:' })).toThrow(/QUIRE_REDIS_URL is not/);
  });

  it('serves /metrics only when a token or a port is set; the port on loopback unless told otherwise', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ QUIRE_METRICS_TOKEN: 'a-long-enough-token' }).metrics).toEqual({ token: 'a-long-enough-token' });
    expect(loadConfig({ QUIRE_METRICS_PORT: '9464' }).metrics).toEqual({ listener: { port: 9464, host: '127.0.0.1' } });
    expect(loadConfig({ QUIRE_METRICS_PORT: '9464', QUIRE_METRICS_HOST: '0.0.0.0', QUIRE_METRICS_TOKEN: 'a-long-enough-token' }).metrics)
      .toEqual({ token: 'a-long-enough-token', listener: { port: 9464, host: '0.0.0.0' } });
    expect(() => loadConfig({ QUIRE_METRICS_TOKEN: 'short' })).toThrow(/at least 16 characters/);
    expect(() => loadConfig({ QUIRE_METRICS_PORT: 'ninety' })).toThrow(/QUIRE_METRICS_PORT must be an integer/);
    expect(() => loadConfig({ QUIRE_METRICS_HOST: '0.0.0.0' })).toThrow(/QUIRE_METRICS_PORT is not/);
  });
});

describe('QUIRE_PROCESSES and QUIRE_JOB_LEASE_MS', () => {
  it('serves from one process unless told otherwise, takes 1 to 64 or auto (the CPU count, capped)', () => {
    expect(loadConfig({}).processes).toBe(1);
    expect(processCount('1')).toBe(1);
    expect(processCount('64')).toBe(64);
    expect(processCount('auto', () => 3)).toBe(3);
    expect(processCount('auto', () => 200)).toBe(64);
    expect(loadConfig({ QUIRE_PROCESSES: 'auto' }).processes).toBeGreaterThanOrEqual(1);
  });

  it('refuses at start a count that would fork nothing or without bound', () => {
    for (const bad of ['0', '65', '-1', '2.5', 'two', ' 2']) {
      expect(() => loadConfig({ QUIRE_PROCESSES: bad }), bad).toThrow(/QUIRE_PROCESSES must be a whole number from 1 to 64, or auto/);
    }
  });

  it('leases a job for a minute by default, and for no less than a second', () => {
    expect(loadConfig({}).jobLeaseMs).toBe(60_000);
    expect(loadConfig({ QUIRE_JOB_LEASE_MS: '2000' }).jobLeaseMs).toBe(2000);
    expect(() => loadConfig({ QUIRE_JOB_LEASE_MS: '999' })).toThrow(ConfigError);
  });
});
