import type { Client, Notification } from 'pg';
import { lazyModule } from '../lazy-module.js';
import type { Logger } from '../logger.js';
import { decodeNotice, type ChangeBus } from './change-notices.js';

const postgresClient = lazyModule<typeof import('pg')>('pg', { warm: false });

/** First wait before reconnecting, doubled after each failure up to the longest. */
const FIRST_RETRY_MS = 100;
const LONGEST_RETRY_MS = 5_000;
/**
 * A connection that dies without an error (a dropped network path) delivers nothing and says nothing: it is
 * probed this often, and one that does not answer within the timeout is replaced (and everything forgotten).
 * This bounds how long notices can be missed unseen.
 */
export const PROBE_INTERVAL_MS = 5_000;
const PROBE_TIMEOUT_MS = 2_000;

export interface ChangeListenerOptions {
  connectionString: string;
  bus: ChangeBus;
  logger: Logger;
}

export interface ChangeListenerHandle {
  /**
   * A barrier: resolves true once every notice committed before the call has been delivered, false when this
   * process is not listening (then nothing that depends on notices may be used). PostgreSQL sends a listening
   * session the notifications queued for it before it reports a query done, and a writer's commit signals the
   * listeners before the writer is answered: a round trip on the listening connection, begun after a write
   * was acknowledged anywhere, ends after that write's notice arrived. Calls made while one round trip is on
   * the wire share the next one (one sent earlier may not cover them).
   */
  sync(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The application_name of a listener connection, by which operators (and tests) find it in pg_stat_activity:
 * `quire-changes-<process id>-<bus>`, the bus naming the database handle (a test runs several in one process).
 */
export function listenerApplicationName(bus: Pick<ChangeBus, 'process'>, pid = process.pid): string {
  return `quire-changes-${pid}-${bus.process}`;
}

/**
 * The one LISTEN connection of this process on PostgreSQL: delivers the notices other processes send on the
 * bus's channel, and keeps the bus not live while it is not listening (see change-notices.ts), reconnecting
 * with backoff.
 */
export function startChangeListener({ connectionString, bus, logger }: ChangeListenerOptions): ChangeListenerHandle {
  let client: Client | undefined;
  let closed = false;
  let retryMs = FIRST_RETRY_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let probeTimer: NodeJS.Timeout | undefined;

  const onNotification = (message: Notification) => {
    if (message.channel !== bus.channel) return;
    const decoded = message.payload === undefined ? undefined : decodeNotice(message.payload);
    if (!decoded) {
      // Another version's notice, or a damaged one: forgetting everything is always right.
      logger.warn({ channel: message.channel }, 'change notice not understood: forgetting every cache that depends on notices');
      bus.deliver({ kind: 'everything' });
      return;
    }
    if (decoded.process !== bus.process) bus.deliver(decoded.notice);
  };

  const lost = (current: Client, reason: string) => {
    if (client !== current) return;
    client = undefined;
    clearInterval(probeTimer);
    current.removeAllListeners('notification');
    current.end().catch(() => undefined);
    if (closed) return;
    bus.setListening(false);
    logger.warn({ reason, retryMs }, 'change listener disconnected: caches that depend on notices are bypassed until it listens again');
    schedule();
  };

  const schedule = () => {
    retryTimer = setTimeout(() => void connect(), retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, LONGEST_RETRY_MS);
  };

  const probe = (current: Client) => {
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS).unref());
    Promise.race([current.query('select 1'), timeout]).catch((error: unknown) => lost(current, (error as Error).message));
  };

  const connect = async () => {
    if (closed) return;
    const current = new (postgresClient().Client)({ connectionString, application_name: listenerApplicationName(bus), keepAlive: true });
    current.on('error', (error) => lost(current, error.message));
    current.on('end', () => lost(current, 'connection ended'));
    current.on('notification', onNotification);
    client = current;
    try {
      await current.connect();
      // The channel is an identifier; quoting keeps a schema's name (mixed case, digits) as it is.
      await current.query(`listen "${bus.channel.replaceAll('"', '""')}"`);
    } catch (error) {
      lost(current, (error as Error).message);
      return;
    }
    if (client !== current || closed) return;
    retryMs = FIRST_RETRY_MS;
    probeTimer = setInterval(() => probe(current), PROBE_INTERVAL_MS);
    probeTimer.unref();
    // Listening from now on; what changed before is forgotten, since its notices may have gone unheard.
    bus.setListening(true);
    logger.debug({ channel: bus.channel }, 'change listener listening');
  };

  const barrier = async (): Promise<boolean> => {
    const current = client;
    if (!current || !bus.live()) return false;
    // Cleared once answered: a busy reader runs thousands of barriers a second, each of which would otherwise
    // leave its timer pending for the whole timeout.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('sync timed out')), PROBE_TIMEOUT_MS).unref();
    });
    try {
      await Promise.race([current.query('select 1'), timeout]);
    } catch (error) {
      lost(current, (error as Error).message);
      return false;
    } finally {
      clearTimeout(timer);
    }
    return client === current && bus.live();
  };
  let onTheWire: Promise<boolean> | undefined;
  let next: Promise<boolean> | undefined;
  const sync = (): Promise<boolean> => {
    if (!onTheWire) {
      onTheWire = barrier().finally(() => {
        onTheWire = undefined;
      });
      return onTheWire;
    }
    next ??= onTheWire.then(() => {
      next = undefined;
      return sync();
    });
    return next;
  };

  void connect();
  return {
    sync,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      clearInterval(probeTimer);
      const current = client;
      client = undefined;
      if (current) {
        current.removeAllListeners('notification');
        await current.end().catch(() => undefined);
      }
    },
  };
}
