import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file is apps/server/{src,dist}/config.*, three levels below it. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** `fail` answers 500 on a response that breaks the contract, `log` only logs it, `off` skips the check. */
export type ResponseValidation = 'fail' | 'log' | 'off';

export type DatabaseConfig =
  | { dialect: 'sqlite'; file: string }
  | { dialect: 'postgres'; connectionString: string; schema?: string };

/**
 * QUIRE_BLOB_STORE: where file bytes live. `disk` (QUIRE_BLOB_DIR on this machine: SQLite's default),
 * `database` (PostgreSQL's default: every process reads what another wrote), or an S3-compatible bucket.
 */
export type BlobStoreConfig =
  | { kind: 'disk' }
  | { kind: 'database' }
  | { kind: 's3'; bucket: string; prefix: string };

export interface Config {
  port: number;
  host: string;
  nodeEnv: NodeEnv;
  logLevel: LogLevel;
  database: DatabaseConfig;
  /** Base of every `urls` value in responses, without a trailing slash. */
  publicUrl: string;
  allowLocalUrls: boolean;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  responseValidation: ResponseValidation;
  /** Whether this process also runs background jobs (the server does by default; `worker.ts` always does). */
  runJobs: boolean;
  /** How long shutdown waits for in-flight requests and the running job before closing anyway. */
  shutdownTimeoutMs: number;
  /**
   * QUIRE_PROCESSES: API processes `npm start` runs on one port (node:cluster); 1 serves from the process
   * itself. `auto` is the machine's CPU count.
   */
  processes: number;
  /**
   * QUIRE_JOB_LEASE_MS: how long a job's claim lasts before another process may take the job over. The
   * runner renews it at half that while the job runs, so it only lapses when its process died or hung.
   */
  jobLeaseMs: number;
  /**
   * Key (its UTF-8 bytes) that signs the visitor claims of `ping` (HS256). Unset: a key is made once and
   * kept in the database, so every node of a deployment signs with the same one.
   */
  jwtSecret?: string;
  /**
   * QUIRE_URL_SECRET: key (at least 32 bytes) that signs download URLs (`/downloads/...`). Unset: a key is
   * made once and kept in the database, so every node of a deployment signs with the same one.
   */
  urlSecret?: string;
  /** QUIRE_BLOB_DIR: where file bytes and rendered PDFs are kept on disk (relative to the repository root). */
  blobDir: string;
  blobStore: BlobStoreConfig;
  /** QUIRE_RATE_LIMIT: API requests one caller may make per minute (0 turns limiting off). */
  rateLimitPerMinute: number;
  /** QUIRE_SESSION_IDLE_MINUTES: a browser session unused this long ends (1440, a day, by default). */
  sessionIdleMinutes: number;
  /** QUIRE_SESSION_MAX_HOURS: a browser session ends this long after it was opened, used or not (168, a week, by default). */
  sessionMaxHours: number;
  /** QUIRE_SIGNIN_LIMIT_ACCOUNT: failed sign-ins allowed per account in 15 minutes (10 by default). */
  signInLimitPerAccount: number;
  /** QUIRE_SIGNIN_LIMIT_ADDRESS: failed sign-ins allowed per client address in 15 minutes (100 by default). */
  signInLimitPerAddress: number;
  /**
   * QUIRE_REDIS_URL: where every process counts rate limits and failed sign-ins, on either dialect. Unset: the
   * PostgreSQL database (a table of its own) on PostgreSQL, this process's memory on SQLite (one machine).
   */
  redis?: RedisConfig;
  /** Who may read `/metrics` (Prometheus); absent when neither QUIRE_METRICS_TOKEN nor QUIRE_METRICS_PORT is set. */
  metrics?: MetricsConfig;
  /** Sign-in through the installation's OpenID Connect provider; absent when QUIRE_OIDC_ISSUER is unset. */
  oidc?: OidcConfig;
  /**
   * QUIRE_SMTP_URL and QUIRE_SMTP_FROM: the mail server invitations are sent through, and their sender. Unset:
   * nothing is mailed, and an invitation's answer carries its join address for the admin to pass on.
   */
  smtp?: SmtpConfig;
}

export interface RedisConfig {
  /** `redis://[user:password@]host:port[/db]` or `rediss://...` (TLS), as ioredis reads it. */
  url: string;
  /** QUIRE_REDIS_KEY_PREFIX: put before every key Quire writes (`quire:` by default), so installs can share a Redis. */
  keyPrefix: string;
}

/**
 * `/metrics` is off unless one of these is set: with a token it is served on the API's port to requests that
 * carry `Authorization: Bearer <token>`; with a port it is served there, on its own listener (loopback by default).
 */
export interface MetricsConfig {
  /** QUIRE_METRICS_TOKEN: at least 16 characters. */
  token?: string;
  /** QUIRE_METRICS_PORT and QUIRE_METRICS_HOST (127.0.0.1 by default). */
  listener?: { port: number; host: string };
}

export interface SmtpConfig {
  /** `smtp://user:password@host:587` or `smtps://...` (nodemailer's connection URL). */
  url: string;
  /** The From of every message, e.g. `Quire <quire@example.com>`. */
  from: string;
}

/** Roles an organization member can have (policies/roles.ts), for the role OpenID Connect joiners get. */
const MEMBER_ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
export type OidcMemberRole = (typeof MEMBER_ROLES)[number];

export interface OidcConfig {
  /** QUIRE_OIDC_ISSUER: the provider's issuer identifier; its discovery document is read from it. */
  issuer: string;
  /** QUIRE_OIDC_CLIENT_ID / QUIRE_OIDC_CLIENT_SECRET: Quire's registration at the provider. */
  clientId: string;
  clientSecret: string;
  /** QUIRE_OIDC_NAME: what sign-in pages call the provider (the issuer's host by default). */
  name: string;
  /** QUIRE_OIDC_ALLOWED_DOMAINS: lower-case e-mail domains allowed to sign in; empty allows any. */
  allowedDomains: string[];
  /** QUIRE_OIDC_ORGANIZATION: the organization a person new to Quire joins on their first sign-in. */
  organizationId?: string;
  /** QUIRE_OIDC_DEFAULT_ROLE: their role there (`read` by default). */
  defaultRole: OidcMemberRole;
  /** A plain-HTTP issuer on a loopback address (a local provider, tests): only with QUIRE_ALLOW_LOCAL_URLS. */
  allowInsecureIssuer: boolean;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const NODE_ENVS: readonly NodeEnv[] = ['development', 'production', 'test'];
const RESPONSE_VALIDATIONS: readonly ResponseValidation[] = ['fail', 'log', 'off'];

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
}

function integer(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(`${name} must be an integer (got "${value}")`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ConfigError(`${name} must be between ${min} and ${max} (got ${parsed})`);
  return parsed;
}

function boolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (['true', '1', 'yes'].includes(value.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(value.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false (got "${value}")`);
}

/** HS256 keys shorter than the hash (32 bytes) are guessable offline from any token they signed. */
function jwtSecret(value: string): string {
  if (Buffer.byteLength(value, 'utf8') < 32) throw new ConfigError('QUIRE_JWT_SECRET must be at least 32 bytes long');
  return value;
}

/** Download URLs signed with a short key could be forged by guessing it offline. */
function urlSecret(value: string): string {
  if (Buffer.byteLength(value, 'utf8') < 32) throw new ConfigError('QUIRE_URL_SECRET must be at least 32 bytes long');
  return value;
}

/** The mail server's URL must say how to reach it; a sender is required with it, since servers refuse mail without one. */
function smtpConfig(url: string | undefined, from: string | undefined): SmtpConfig | undefined {
  if (url === undefined || url === '') {
    if (from) throw new ConfigError('QUIRE_SMTP_FROM is set but QUIRE_SMTP_URL is not: set both to send invitations by mail');
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('QUIRE_SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') throw new ConfigError('QUIRE_SMTP_URL must start with smtp:// or smtps://');
  if (!from) throw new ConfigError('QUIRE_SMTP_FROM (the sender of invitations, e.g. "Quire <quire@example.com>") is required with QUIRE_SMTP_URL');
  return { url, from };
}

/** A Redis URL that is not one would otherwise fail only at the first request, counted in memory meanwhile. */
function redisConfig(url: string | undefined, keyPrefix: string | undefined): RedisConfig | undefined {
  if (url === undefined || url === '') {
    if (keyPrefix) throw new ConfigError('QUIRE_REDIS_KEY_PREFIX is set but QUIRE_REDIS_URL is not');
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('QUIRE_REDIS_URL must be a URL such as redis://127.0.0.1:6379 or rediss://user:password@redis.example.com:6380');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new ConfigError('QUIRE_REDIS_URL must start with redis:// or rediss://');
  if (!parsed.hostname) throw new ConfigError('QUIRE_REDIS_URL must name a host, e.g. redis://127.0.0.1:6379');
  const prefix = keyPrefix || 'quire:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(prefix)) throw new ConfigError('QUIRE_REDIS_KEY_PREFIX must be 1 to 64 letters, digits or : _ . -');
  return { url, keyPrefix: prefix };
}

/** A guessable token would open the metrics (request rates, queue depths) to anyone who can reach the port. */
function metricsConfig(env: NodeJS.ProcessEnv): MetricsConfig | undefined {
  const token = env.QUIRE_METRICS_TOKEN || undefined;
  if (token !== undefined && (token.length < 16 || /\s/.test(token))) {
    throw new ConfigError('QUIRE_METRICS_TOKEN must be at least 16 characters, without spaces');
  }
  const port = env.QUIRE_METRICS_PORT ? integer('QUIRE_METRICS_PORT', env.QUIRE_METRICS_PORT, 0, 0, 65535) : undefined;
  if (env.QUIRE_METRICS_HOST && port === undefined) throw new ConfigError('QUIRE_METRICS_HOST is set but QUIRE_METRICS_PORT is not');
  if (token === undefined && port === undefined) return undefined;
  return {
    ...(token !== undefined ? { token } : {}),
    ...(port !== undefined ? { listener: { port, host: env.QUIRE_METRICS_HOST || '127.0.0.1' } } : {}),
  };
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The OpenID Connect settings, all or nothing: an issuer without its client (or the reverse) is a mistake
 * better reported at start than at the first sign-in. The issuer must be HTTPS, since its discovery document
 * names the keys that sign ID tokens; plain HTTP only for a provider on this machine when local URLs are allowed.
 */
function oidcConfig(env: NodeJS.ProcessEnv, allowLocalUrls: boolean): OidcConfig | undefined {
  const issuer = env.QUIRE_OIDC_ISSUER || undefined;
  const clientId = env.QUIRE_OIDC_CLIENT_ID || undefined;
  const clientSecret = env.QUIRE_OIDC_CLIENT_SECRET || undefined;
  if (!issuer && !clientId && !clientSecret) return undefined;
  if (!issuer || !clientId || !clientSecret) {
    throw new ConfigError('QUIRE_OIDC_ISSUER, QUIRE_OIDC_CLIENT_ID and QUIRE_OIDC_CLIENT_SECRET are set together or not at all');
  }
  let parsed: URL;
  try {
    parsed = new URL(issuer);
  } catch {
    throw new ConfigError(`QUIRE_OIDC_ISSUER must be an https URL (got "${issuer}")`);
  }
  const insecure = parsed.protocol === 'http:';
  if (parsed.protocol !== 'https:' && !(insecure && allowLocalUrls && LOOPBACK_HOSTS.has(parsed.hostname))) {
    throw new ConfigError(`QUIRE_OIDC_ISSUER must be an https URL (plain http only on a loopback host with QUIRE_ALLOW_LOCAL_URLS=true; got "${issuer}")`);
  }
  const allowedDomains = (env.QUIRE_OIDC_ALLOWED_DOMAINS ?? '').split(',').map((domain) => domain.trim().toLowerCase()).filter(Boolean);
  for (const domain of allowedDomains) {
    if (!DOMAIN.test(domain)) throw new ConfigError(`QUIRE_OIDC_ALLOWED_DOMAINS must be comma-separated e-mail domains (got "${domain}")`);
  }
  const organizationId = env.QUIRE_OIDC_ORGANIZATION || undefined;
  return {
    issuer,
    clientId,
    clientSecret,
    name: (env.QUIRE_OIDC_NAME || parsed.hostname).slice(0, 100),
    allowedDomains,
    ...(organizationId ? { organizationId } : {}),
    defaultRole: oneOf('QUIRE_OIDC_DEFAULT_ROLE', env.QUIRE_OIDC_DEFAULT_ROLE, MEMBER_ROLES, 'read'),
    allowInsecureIssuer: insecure,
  };
}

/** Sizes like `1mb`, `512kb` or a plain number of bytes. */
export function parseByteSize(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(value.trim());
  if (!match) throw new ConfigError(`${name} must be a size such as 1mb, 512kb or 1048576 (got "${value}")`);
  const unit = (match[2] ?? 'b').toLowerCase();
  const bytes = Number(match[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
  if (bytes < 1024) throw new ConfigError(`${name} must be at least 1kb`);
  return bytes;
}

/**
 * `sqlite:<path>` (relative paths resolve against the repository root, so every entry point and the admin
 * command line find the same file whatever their working directory) or `postgres://...`. A `schema`
 * query parameter on a PostgreSQL URL puts every table in that schema (used by tests to isolate runs).
 */
export function parseDatabaseUrl(url: string): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/quire.db');
    if (path === ':memory:') return { dialect: 'sqlite', file: ':memory:' };
    return { dialect: 'sqlite', file: isAbsolute(path) ? path : resolve(repoRoot, path) };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL');
    }
    const schema = parsed.searchParams.get('schema') ?? undefined;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new ConfigError('DATABASE_URL schema must be a lower-case SQL identifier');
    }
    parsed.searchParams.delete('schema');
    return schema ? { dialect: 'postgres', connectionString: parsed.toString(), schema } : { dialect: 'postgres', connectionString: parsed.toString() };
  }
  throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
}

/**
 * QUIRE_BLOB_STORE: `disk`, `database` or `s3://bucket/prefix`; unset, the database on PostgreSQL (so that
 * processes on several machines share files) and the disk on SQLite (one machine anyway).
 */
export function parseBlobStore(value: string | undefined, database: DatabaseConfig): BlobStoreConfig {
  if (value === undefined || value === '') return database.dialect === 'postgres' ? { kind: 'database' } : { kind: 'disk' };
  if (value === 'disk' || value === 'database') return { kind: value };
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (!match) throw new ConfigError(`QUIRE_BLOB_STORE must be disk, database or s3://bucket/prefix (got "${value}")`);
  return { kind: 's3', bucket: match[1]!, prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, '') };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The most API processes one `npm start` forks: far past any core count it makes sense to fill. */
export const MAX_PROCESSES = 64;

/** QUIRE_PROCESSES: 1 to 64, or `auto` for the CPU count (capped the same way); 1 when unset. */
export function processCount(value: string | undefined, cpus: () => number = availableParallelism): number {
  if (value === undefined || value === '') return 1;
  if (value === 'auto') return Math.min(MAX_PROCESSES, Math.max(1, cpus()));
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_PROCESSES) {
    throw new ConfigError(`QUIRE_PROCESSES must be a whole number from 1 to ${MAX_PROCESSES}, or auto (got "${value}")`);
  }
  return Number(value);
}

/** Reads and checks the environment once; every entry point calls this before doing anything else. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = oneOf('NODE_ENV', env.NODE_ENV, NODE_ENVS, 'development');
  const port = integer('PORT', env.PORT, 8080, 0, 65535);
  const publicUrl = (env.QUIRE_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    const parsed = new URL(publicUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new ConfigError(`QUIRE_PUBLIC_URL must be an http(s) URL (got "${publicUrl}")`);
  }
  const allowLocalUrls = boolean('QUIRE_ALLOW_LOCAL_URLS', env.QUIRE_ALLOW_LOCAL_URLS, false);
  const oidc = oidcConfig(env, allowLocalUrls);
  const database = parseDatabaseUrl(env.DATABASE_URL || 'sqlite:./data/quire.db');
  return {
    port,
    host: env.HOST || '0.0.0.0',
    nodeEnv,
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info'),
    database,
    publicUrl,
    allowLocalUrls,
    bodyLimitBytes: parseByteSize('QUIRE_BODY_LIMIT', env.QUIRE_BODY_LIMIT, 1024 * 1024),
    rateLimitPerMinute: integer('QUIRE_RATE_LIMIT', env.QUIRE_RATE_LIMIT, 1200, 0, 1_000_000),
    // Production only logs a contract mismatch so that a client still gets its data; tests and development
    // fail loudly so the mismatch is fixed before it ships.
    responseValidation: oneOf('QUIRE_RESPONSE_VALIDATION', env.QUIRE_RESPONSE_VALIDATION, RESPONSE_VALIDATIONS,
      nodeEnv === 'production' ? 'log' : 'fail'),
    runJobs: boolean('QUIRE_RUN_JOBS', env.QUIRE_RUN_JOBS, true),
    shutdownTimeoutMs: integer('QUIRE_SHUTDOWN_TIMEOUT_MS', env.QUIRE_SHUTDOWN_TIMEOUT_MS, 10_000, 0, 600_000),
    processes: processCount(env.QUIRE_PROCESSES),
    jobLeaseMs: integer('QUIRE_JOB_LEASE_MS', env.QUIRE_JOB_LEASE_MS, 60_000, 1000, 3_600_000),
    ...(env.QUIRE_JWT_SECRET ? { jwtSecret: jwtSecret(env.QUIRE_JWT_SECRET) } : {}),
    ...(env.QUIRE_URL_SECRET ? { urlSecret: urlSecret(env.QUIRE_URL_SECRET) } : {}),
    blobDir: env.QUIRE_BLOB_DIR || './data/blobs',
    smtp: smtpConfig(env.QUIRE_SMTP_URL, env.QUIRE_SMTP_FROM),
    ...(oidc ? { oidc } : {}),
    sessionIdleMinutes: integer('QUIRE_SESSION_IDLE_MINUTES', env.QUIRE_SESSION_IDLE_MINUTES, 1440, 1, 525_600),
    sessionMaxHours: integer('QUIRE_SESSION_MAX_HOURS', env.QUIRE_SESSION_MAX_HOURS, 168, 1, 8_760),
    signInLimitPerAccount: integer('QUIRE_SIGNIN_LIMIT_ACCOUNT', env.QUIRE_SIGNIN_LIMIT_ACCOUNT, 10, 1, 1_000_000),
    signInLimitPerAddress: integer('QUIRE_SIGNIN_LIMIT_ADDRESS', env.QUIRE_SIGNIN_LIMIT_ADDRESS, 100, 1, 1_000_000),
    blobStore: parseBlobStore(env.QUIRE_BLOB_STORE, database),
    ...optional('redis', redisConfig(env.QUIRE_REDIS_URL, env.QUIRE_REDIS_KEY_PREFIX)),
    ...optional('metrics', metricsConfig(env)),
  };
}
