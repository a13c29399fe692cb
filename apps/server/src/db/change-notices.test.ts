import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from '../../test/dialects.js';
import { parseDatabaseUrl } from '../config.js';
import { createLogger } from '../logger.js';
import { listenerApplicationName, startChangeListener, type ChangeListenerHandle } from './change-listener.js';
import { changeFeedOf, decodeNotice, encodeNotice, notifyChange, transactionWithNotices, type ChangeNotice } from './change-notices.js';
import { openDatabase, type DatabaseHandle } from './index.js';

const site = (siteId: string): ChangeNotice => ({ kind: 'site', siteId });

describe('change notice payloads', () => {
  it('carry the notice and the process that sent it, and nothing else is taken for one', () => {
    expect(decodeNotice(encodeNotice('p1', site('s1')))).toEqual({ process: 'p1', notice: site('s1') });
    expect(decodeNotice(encodeNotice('p1', { kind: 'space', spaceId: 'x' }))?.notice).toEqual({ kind: 'space', spaceId: 'x' });
    for (const payload of ['', 'not json', '{"v":2,"p":"p","n":{"kind":"everything"}}', '{"v":1,"p":"p","n":{"kind":"site"}}', '{"v":1,"n":{"kind":"everything"}}']) {
      expect(decodeNotice(payload)).toBeUndefined();
    }
  });
});

describeEachDialect('change notices', (dialect) => {
  let target: TestDatabaseUrl;
  let handle: DatabaseHandle;
  const heard: ChangeNotice[] = [];
  beforeAll(async () => {
    target = createTestDatabaseUrl(dialect);
    handle = await openDatabase(parseDatabaseUrl(target.url));
    changeFeedOf(handle.db).subscribe((notice) => heard.push(notice));
  });
  afterAll(async () => {
    await handle?.close();
    await target?.drop();
  });

  it('reach this process once the transaction commits, not before, and never when it rolls back', async () => {
    heard.length = 0;
    await transactionWithNotices(handle.db, async (trx) => {
      await notifyChange(trx, site('committed'));
      await notifyChange(trx, site('committed'));
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual([site('committed')]);

    heard.length = 0;
    await expect(transactionWithNotices(handle.db, async (trx) => {
      await notifyChange(trx, site('rolled back'));
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect(heard).toEqual([]);
  });

  it('reach it at once outside a transaction, and refuse a transaction that could not deliver them', async () => {
    heard.length = 0;
    await notifyChange(handle.db, site('autocommit'));
    expect(heard).toEqual([site('autocommit')]);
    await expect(handle.db.transaction().execute((trx) => notifyChange(trx, site('lost')))).rejects.toThrow(/transactionWithNotices/);
  });

  it('say whether they are live: always on SQLite, only while listening on PostgreSQL', () => {
    expect(changeFeedOf(handle.db).live()).toBe(dialect === 'sqlite');
  });

  if (dialect !== 'postgres') return;

  describe('between processes (two database handles on one schema)', () => {
    let other: DatabaseHandle;
    let listener: ChangeListenerHandle;
    const otherHeard: ChangeNotice[] = [];
    beforeAll(async () => {
      other = await openDatabase(parseDatabaseUrl(target.url));
      const config = parseDatabaseUrl(target.url);
      if (config.dialect !== 'postgres') throw new Error('postgres expected');
      const feed = changeFeedOf(other.db);
      feed.subscribe((notice) => otherHeard.push(notice));
      listener = startChangeListener({ connectionString: config.connectionString, bus: feed, logger: createLogger('silent') });
      await vi.waitFor(() => expect(feed.live()).toBe(true), { timeout: 10_000 });
    });
    afterAll(async () => {
      await listener?.close();
      await other?.close();
    });

    it('a committed notice reaches the other process; a rolled-back one does not', async () => {
      otherHeard.length = 0;
      await expect(transactionWithNotices(handle.db, async (trx) => {
        await notifyChange(trx, site('never'));
        throw new Error('refused');
      })).rejects.toThrow('refused');
      await transactionWithNotices(handle.db, (trx) => notifyChange(trx, site('heard')));
      await vi.waitFor(() => expect(otherHeard).toEqual([site('heard')]));
    });

    it('sync() returns only once every notice committed before it was delivered, each time, however many wait at once', async () => {
      for (let round = 0; round < 20; round++) {
        otherHeard.length = 0;
        await transactionWithNotices(handle.db, (trx) => notifyChange(trx, site(`round ${round}`)));
        // No waiting for delivery: the barrier itself is the wait. Several callers at once share round trips.
        const synced = await Promise.all([listener.sync(), listener.sync(), listener.sync()]);
        expect(synced).toEqual([true, true, true]);
        expect(otherHeard).toEqual([site(`round ${round}`)]);
      }
    });

    it('a listener whose connection is terminated is not live, forgets everything, and listens again', async () => {
      const feed = changeFeedOf(other.db);
      otherHeard.length = 0;
      const { rows } = await sql<{ ended: boolean }>`select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = ${listenerApplicationName(feed)}`.execute(handle.db);
      expect(rows.map((row) => row.ended)).toEqual([true]);
      await vi.waitFor(() => expect(otherHeard).toContainEqual({ kind: 'everything' }));
      await vi.waitFor(() => expect(feed.live()).toBe(true), { timeout: 10_000 });
      // Listening again: forgotten once more on reconnecting (notices may have been missed), and hearing again.
      expect(otherHeard.filter((notice) => notice.kind === 'everything')).toHaveLength(2);
      await notifyChange(handle.db, site('after'));
      await vi.waitFor(() => expect(otherHeard).toContainEqual(site('after')));
    });
  });
});
