import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, DialectName } from './index.js';

/*
 * Change notices: how a write tells every process on the same database (this one included) to forget what
 * it keeps of the thing written. The one place that knows the channel and the payload format.
 *
 * - A store calls `notifyChange(db, notice)` beside its write, with the same `db`. On PostgreSQL that runs
 *   `pg_notify` in the write's transaction, so a rolled-back write notifies nothing and other processes hear
 *   of a committed one from their listener (change-listener.ts). In this process the notice is delivered
 *   right after the commit (before the write is acknowledged to its client), on both dialects: on SQLite,
 *   one process, that is the whole delivery.
 * - Consumers `subscribe` to the feed of their database (`changeFeedOf`) and check `live()` before reusing
 *   what a notice would invalidate: on PostgreSQL it is false until the listener listens, and while it is
 *   reconnecting, since notices of other processes may be missed meanwhile. Each (re)connection delivers
 *   `{ kind: 'everything' }` first.
 */

export type ChangeNotice =
  /** A site's publication, visibility, addresses, site spaces, sections or customization changed. */
  | { kind: 'site'; siteId: string }
  /** A space was deleted, restored or moved to another organization: sites showing it show it no longer. */
  | { kind: 'space'; spaceId: string }
  /** Notices may have been missed (the listener reconnected): forget everything. */
  | { kind: 'everything' };

export type ChangeListener = (notice: ChangeNotice) => void;

export interface ChangeFeed {
  subscribe(listener: ChangeListener): () => void;
  /** Whether every committed change reaches this process now; when false, keep and reuse nothing that depends on notices. */
  live(): boolean;
}

/** What a payload says besides the notice: the process that sent it (its own notices are delivered locally). */
interface Payload {
  v: 1;
  p: string;
  n: ChangeNotice;
}

const PAYLOAD_VERSION = 1;

/** The channel of a database: one per PostgreSQL schema, so that installations (and test runs) sharing a database stay apart. */
export function channelOf(schema: string | undefined): string {
  return schema ? `quire_changes_${schema}` : 'quire_changes';
}

export function encodeNotice(process: string, notice: ChangeNotice): string {
  return JSON.stringify({ v: PAYLOAD_VERSION, p: process, n: notice } satisfies Payload);
}

/** The notice of a payload and who sent it, or undefined when it is not one this version understands. */
export function decodeNotice(payload: string): { process: string; notice: ChangeNotice } | undefined {
  try {
    const parsed = JSON.parse(payload) as Partial<Payload>;
    const notice = parsed.n;
    if (parsed.v !== PAYLOAD_VERSION || typeof parsed.p !== 'string' || typeof notice !== 'object' || notice === null) return undefined;
    if (notice.kind === 'site' && typeof notice.siteId === 'string') return { process: parsed.p, notice };
    if (notice.kind === 'space' && typeof notice.spaceId === 'string') return { process: parsed.p, notice };
    if (notice.kind === 'everything') return { process: parsed.p, notice };
    return undefined;
  } catch {
    return undefined;
  }
}

/** The feed of one database in this process. */
export class ChangeBus implements ChangeFeed {
  /** Names this process in payloads, so that its own notices, delivered locally already, are skipped when heard back. */
  readonly process = randomBytes(9).toString('base64url');
  readonly channel: string;
  private readonly listeners = new Set<ChangeListener>();
  private listening: boolean;

  constructor(readonly dialect: DialectName, schema: string | undefined) {
    this.channel = channelOf(schema);
    // SQLite is one process: every change is made here and delivered here.
    this.listening = dialect === 'sqlite';
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  live(): boolean {
    return this.listening;
  }

  /** Set by the listener: false when it lost its connection, true once it listens again (everything is forgotten both times). */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.deliver({ kind: 'everything' });
  }

  deliver(notice: ChangeNotice): void {
    for (const listener of this.listeners) {
      // A consumer's failure must not keep the others from forgetting, nor fail the write that notified.
      try {
        listener(notice);
      } catch {
        // nothing to do: the consumer's own bug, and forgetting is all it could have done
      }
    }
  }
}

const buses = new WeakMap<Db, ChangeBus>();
/** The bus and notices of each open transaction (`transactionWithNotices`), delivered when it commits. */
const pendingOf = new WeakMap<Db, { bus: ChangeBus; notices: ChangeNotice[] }>();

/** Called once by openDatabase for each database it opens. */
export function registerChangeBus(db: Db, dialect: DialectName, schema: string | undefined): ChangeBus {
  const bus = new ChangeBus(dialect, schema);
  buses.set(db, bus);
  return bus;
}

/** The feed of a database opened by openDatabase. */
export function changeFeedOf(db: Db): ChangeBus {
  const bus = buses.get(db);
  if (!bus) throw new Error('the database was not opened by openDatabase: it has no change feed');
  return bus;
}

/**
 * Runs `step` in a transaction of `db` and delivers the notices its writes made in this process once it has
 * committed (none if it fails). Every transaction whose writes notify must be opened here.
 */
export async function transactionWithNotices<T>(db: Db, step: (trx: Db) => Promise<T>): Promise<T> {
  const pending = { bus: changeFeedOf(db), notices: [] as ChangeNotice[] };
  const result = await db.transaction().execute((trx) => {
    pendingOf.set(trx, pending);
    return step(trx);
  });
  for (const notice of pending.notices) pending.bus.deliver(notice);
  return result;
}

/** Tells every process that `notice`'s subject changed, in `db`'s transaction when it is one (see the top of this file). */
export async function notifyChange(db: Db, notice: ChangeNotice): Promise<void> {
  const pending = db.isTransaction ? pendingOf.get(db) : undefined;
  if (db.isTransaction && !pending) throw new Error('a change notice was written in a transaction not opened by transactionWithNotices');
  const bus = pending?.bus ?? changeFeedOf(db);
  if (bus.dialect === 'postgres') await sql`select pg_notify(${bus.channel}, ${encodeNotice(bus.process, notice)})`.execute(db);
  if (pending) {
    if (!pending.notices.some((known) => JSON.stringify(known) === JSON.stringify(notice))) pending.notices.push(notice);
  } else {
    bus.deliver(notice);
  }
}
