import type { Db } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import { decodeObject, type NewObject, type ObjectReader, type TreeObject } from '../content/index.js';
import { chunks } from './collection-store.js';

/**
 * The content core's objects in `content_objects`. Objects are immutable and keyed by the hash of their
 * bytes, so writing one that exists already is a no-op and a revision of another space can share it.
 */
export class SqlObjectReader implements ObjectReader {
  constructor(private readonly db: Db) {}

  async get(hash: string): Promise<TreeObject | undefined> {
    const row = await this.db.selectFrom('content_objects').select(['kind', 'body']).where('hash', '=', hash).executeTakeFirst();
    if (!row || row.kind === 'blob') return undefined;
    return decodeObject(row.kind, row.body) as TreeObject;
  }

  async getMany(hashes: readonly string[]): Promise<ReadonlyMap<string, TreeObject>> {
    const found = new Map<string, TreeObject>();
    for (const chunk of chunks([...new Set(hashes)])) {
      const rows = await this.db.selectFrom('content_objects').select(['hash', 'kind', 'body']).where('hash', 'in', chunk).execute();
      for (const row of rows) if (row.kind !== 'blob') found.set(row.hash, decodeObject(row.kind, row.body) as TreeObject);
    }
    return found;
  }

  async getBlob(hash: string): Promise<Uint8Array | undefined> {
    const row = await this.db.selectFrom('content_objects').select(['kind', 'body']).where('hash', '=', hash).executeTakeFirst();
    return row?.kind === 'blob' ? row.body : undefined;
  }
}

/** Inserts the objects that are not stored yet ("insert ... on conflict do nothing"), in the caller's transaction. */
export async function putObjects(db: Db, objects: readonly NewObject[]): Promise<void> {
  // Four parameters per row: 200 rows stay far below the bound-parameter limits of both databases.
  for (const chunk of chunks(objects, 200)) {
    await db.insertInto('content_objects')
      .values(chunk.map((object) => ({ hash: object.hash, kind: object.kind, body: object.body, size: object.body.byteLength })))
      .onConflict((conflict) => conflict.column('hash').doNothing())
      .execute();
  }
}

/** How many content objects are stored and their total size in bytes (benches measure what an operation wrote). */
export async function contentObjectTotals(db: Db): Promise<{ objects: number; bytes: number }> {
  const row = await db.selectFrom('content_objects')
    .select((eb) => [eb.fn.countAll().as('objects'), eb.fn.sum<number | string | null>('size').as('bytes')])
    .executeTakeFirstOrThrow();
  return { objects: toCount(row.objects), bytes: Number(row.bytes ?? 0) };
}
