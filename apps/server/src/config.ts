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
   * Key (its UTF-8 bytes) that signs the visitor claims of `ping` (HS256). Unset: a key is made once and
   * kept in the database, so every node of a deployment signs with the same one.
   */
  jwtSecret?: string;
  /**
   * QUIRE_URL_SECRET: key (at least 32 bytes) that signs download URLs (`/downloads/...`). Unset: a key is
   * made once and kept in the database, so every node of a deployment signs with the same one.
   */
  urlSecret?: string;
  /** QUIRE_BLOB_DIR: where file bytes and rendered PDFs are kept (relative to the repository root). */
  blobDir: string;
  /** QUIRE_RATE_LIMIT: API requests one caller may make per minute (0 turns limiting off). */
  rateLimitPerMinute: number;
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
  return {
    port,
    host: env.HOST || '0.0.0.0',
    nodeEnv,
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info'),
    database: parseDatabaseUrl(env.DATABASE_URL || 'sqlite:./data/quire.db'),
    publicUrl,
    allowLocalUrls: boolean('QUIRE_ALLOW_LOCAL_URLS', env.QUIRE_ALLOW_LOCAL_URLS, false),
    bodyLimitBytes: parseByteSize('QUIRE_BODY_LIMIT', env.QUIRE_BODY_LIMIT, 1024 * 1024),
    rateLimitPerMinute: integer('QUIRE_RATE_LIMIT', env.QUIRE_RATE_LIMIT, 1200, 0, 1_000_000),
    // Production only logs a contract mismatch so that a client still gets its data; tests and development
    // fail loudly so the mismatch is fixed before it ships.
    responseValidation: oneOf('QUIRE_RESPONSE_VALIDATION', env.QUIRE_RESPONSE_VALIDATION, RESPONSE_VALIDATIONS,
      nodeEnv === 'production' ? 'log' : 'fail'),
    runJobs: boolean('QUIRE_RUN_JOBS', env.QUIRE_RUN_JOBS, true),
    shutdownTimeoutMs: integer('QUIRE_SHUTDOWN_TIMEOUT_MS', env.QUIRE_SHUTDOWN_TIMEOUT_MS, 10_000, 0, 600_000),
    ...(env.QUIRE_JWT_SECRET ? { jwtSecret: jwtSecret(env.QUIRE_JWT_SECRET) } : {}),
    ...(env.QUIRE_URL_SECRET ? { urlSecret: urlSecret(env.QUIRE_URL_SECRET) } : {}),
    blobDir: env.QUIRE_BLOB_DIR || './data/blobs',
  };
}
