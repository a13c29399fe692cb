import { Secret, TOTP } from 'otpauth';
import { TooManyRequestsError, UnauthorizedError } from '#server/errors.js';
import { migrateToLatest } from '#server/db/migrate.js';
import { addMember } from '#server/services/admin-service.js';
import type { Caller } from '#server/services/caller.js';
import type { ServiceContext } from '#server/services/context.js';
import { decoyPasswordHash } from '#server/services/password-hashing.js';
import { setUserPasswordByEmail, signIn } from '#server/services/sign-in-service.js';
import { createSignInThrottle } from '#server/services/sign-in-throttle.js';
import { confirmTotpEnrollment, startTotpEnrollment } from '#server/services/totp-service.js';
import { findUserById } from '#server/stores/user-store.js';
import { openBenchDatabase } from './bench-database.js';
import { bootstrapBench } from './bench-owner.js';
import { positiveIntegerOption, printReport, runIfScript } from './report.js';

/*
 * Whether the time a failed password sign-in takes tells if the email has an account (issue 24). N failed
 * sign-ins (`signIn`, the service behind POST /auth/sign-in, with its database reads and argon2id) of each kind:
 * an unknown email, a known email with a wrong password, a known email that never set a password (invited,
 * or SSO only), and an account with TOTP and a wrong password. The kinds are taken in turns (a round is one of
 * each, in an order that rotates), so the drift of a shared machine falls on all of them alike; each kind's
 * median and p90, and the difference of its median to the unknown email's, are reported. The figure that
 * matters is that difference next to the spread of one kind (p90 - median): a difference well inside the
 * spread cannot be told apart by someone timing sign-ins over a network.
 * Then the throttle: once an account's failed attempts are used up, the 429 of an unknown email and of a known
 * one are compared (status, message, Retry-After).
 * Standalone: `node bench-dist/sign-in-bench.js [--attempts N] [--json]`; BENCH_DATABASE_URL picks PostgreSQL.
 */

export interface SignInKindMeasure {
  kind: string;
  attempts: number;
  medianMs: number;
  p90Ms: number;
  /** This kind's median minus the unknown email's. */
  deltaMs: number;
  /**
   * The median, over the rounds, of this kind's time minus the unknown email's in the same round: the drift of a
   * shared machine cancels within a round, so this is the steadier estimate of the difference.
   */
  pairedDeltaMs: number;
}

export interface SignInBenchReport {
  dialect: string;
  attempts: number;
  kinds: SignInKindMeasure[];
  /** The largest |pairedDeltaMs| of the kinds, and the smallest spread (p90 - median) among them, for comparing. */
  largestDeltaMs: number;
  smallestSpreadMs: number;
  throttle: { unknown: string; known: string; alike: boolean };
}

const PASSWORD = 'a long and right password 7';
const WRONG = 'a long and wrong password 8';
/** Generous limits: the timing rounds must never be throttled. */
const NO_LIMITS = { perAccount: 1_000_000, perAddress: 1_000_000, windowSeconds: 900 };

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The people whose failed sign-ins are timed: each kind's email. */
async function seedAccounts(context: ServiceContext, organizationId: string): Promise<Record<string, string>> {
  const emails = { 'unknown email': 'nobody-here@example.com', 'wrong password': 'has-password@example.com', 'no password set': 'no-password@example.com', 'TOTP, wrong password': 'has-totp@example.com' };
  for (const email of Object.values(emails).slice(1)) await addMember(context, { organizationId, email, role: 'read' });
  await setUserPasswordByEmail(context, emails['wrong password'], PASSWORD);
  const totp = await setUserPasswordByEmail(context, emails['TOTP, wrong password'], PASSWORD);
  const user = (await findUserById(context.db, totp.userId))!;
  const caller: Caller = { user, tokenId: 'bench' };
  const { secret } = await startTotpEnrollment(context, caller);
  await confirmTotpEnrollment(context, caller, new TOTP({ secret: Secret.fromBase32(secret) }).generate());
  return emails;
}

/** One failed sign-in, timed; anything but the 401 of wrong credentials stops the bench. */
async function timedFailure(context: ServiceContext, email: string): Promise<number> {
  const started = performance.now();
  try {
    await signIn(context, { email, password: WRONG, address: '192.0.2.1', userAgent: 'bench' });
  } catch (error) {
    if (error instanceof UnauthorizedError) return performance.now() - started;
    throw error;
  }
  throw new Error(`a sign-in of ${email} with a wrong password succeeded`);
}

/** The 429 a throttled sign-in of `email` answers, as the API writes it: status, message and Retry-After. */
async function throttledAnswer(context: ServiceContext, email: string, limit: number): Promise<string> {
  for (let attempt = 0; attempt < limit; attempt += 1) await timedFailure(context, email);
  try {
    await signIn(context, { email, password: WRONG, address: `198.51.100.${limit}`, userAgent: 'bench' });
  } catch (error) {
    if (error instanceof TooManyRequestsError) return `${error.status} ${error.message} (Retry-After ${error.headers?.['Retry-After']})`;
    throw error;
  }
  throw new Error(`the sign-in of ${email} was not throttled`);
}

export async function runSignInBench(options: { attempts?: number; databaseUrl?: string; log?: (line: string) => void } = {}): Promise<SignInBenchReport> {
  const attempts = options.attempts ?? 200;
  const log = options.log ?? (() => {});
  const database = await openBenchDatabase('signin', options.databaseUrl, { log });
  try {
    await migrateToLatest(database.handle);
    const owner = await bootstrapBench(database.handle, 'Sign-in bench', { signInLimits: NO_LIMITS });
    const context = owner.context;
    const emails = await seedAccounts(context, owner.organizationId);
    const kinds = Object.keys(emails);
    await decoyPasswordHash();
    // A few rounds untimed: the first verifications load the native module and warm the statements.
    for (let round = 0; round < 5; round += 1) for (const kind of kinds) await timedFailure(context, emails[kind]!);
    log(`sign-in bench: ${attempts} failed sign-ins of each of ${kinds.length} kinds, in turns...`);
    const times = new Map<string, number[]>(kinds.map((kind) => [kind, []]));
    for (let round = 0; round < attempts; round += 1) {
      for (let turn = 0; turn < kinds.length; turn += 1) {
        const kind = kinds[(round + turn) % kinds.length]!;
        times.get(kind)!.push(await timedFailure(context, emails[kind]!));
      }
    }
    const summary = kinds.map((kind) => {
      const sorted = [...times.get(kind)!].sort((a, b) => a - b);
      return { kind, attempts: sorted.length, medianMs: percentile(sorted, 0.5), p90Ms: percentile(sorted, 0.9) };
    });
    const baseline = summary[0]!.medianMs;
    const unknownTimes = times.get(kinds[0]!)!;
    const pairedDelta = (kind: string) => percentile(times.get(kind)!.map((ms, round) => ms - unknownTimes[round]!).sort((a, b) => a - b), 0.5);
    const measures = summary.map((m) => ({ ...m, medianMs: round2(m.medianMs), p90Ms: round2(m.p90Ms), deltaMs: round2(m.medianMs - baseline), pairedDeltaMs: round2(pairedDelta(m.kind)) }));

    // The throttle, on limits small enough to reach: an account's attempts used up, unknown or known.
    const limit = 3;
    const throttled: ServiceContext = { ...context, signInLimits: { perAccount: limit, perAddress: 1_000_000, windowSeconds: 900 } };
    const unknown = await throttledAnswer(throttled, 'nobody-either@example.com', limit);
    const known = await throttledAnswer(throttled, emails['wrong password']!, limit);
    return {
      dialect: database.config.dialect,
      attempts,
      kinds: measures,
      largestDeltaMs: Math.max(...measures.map((m) => Math.abs(m.pairedDeltaMs))),
      smallestSpreadMs: round2(Math.min(...measures.map((m) => m.p90Ms - m.medianMs))),
      throttle: { unknown, known, alike: unknown === known },
    };
  } finally {
    await database.cleanup();
  }
}

const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`;

export function formatSignInBenchReport(report: SignInBenchReport): string {
  return [
    `sign-in: ${report.attempts} failed password sign-ins of each kind, in turns (${report.dialect}; signIn service: reads, argon2id, throttle)`,
    'kind                     median ms   p90 ms   median - unknown email   same-round difference (median)',
    ...report.kinds.map((m) => `${m.kind.padEnd(24)} ${m.medianMs.toFixed(2).padStart(9)} ${m.p90Ms.toFixed(2).padStart(8)}   ${signed(m.deltaMs).padStart(22)}   ${signed(m.pairedDeltaMs).padStart(30)}`),
    `largest same-round difference ${report.largestDeltaMs.toFixed(2)} ms; smallest spread (p90 - median) of a kind ${report.smallestSpreadMs.toFixed(2)} ms`,
    `throttled: unknown email -> ${report.throttle.unknown}; known email -> ${report.throttle.known}; ${report.throttle.alike ? 'alike' : 'DIFFERENT'}`,
  ].join('\n');
}

runIfScript(import.meta.url, 'sign-in-bench', async () => {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const report = await runSignInBench({ attempts: positiveIntegerOption('attempts') ?? 200, ...(databaseUrl ? { databaseUrl } : {}), log: (line) => process.stderr.write(`${line}\n`) });
  printReport(report, formatSignInBenchReport);
});
