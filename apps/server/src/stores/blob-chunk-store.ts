import type { Db } from '../db/index.js';

/*
 * The SQL of the database file store (storage/database-blob-storage.ts): uploads in chunks, the files they
 * become, and the sweep of uploads a crash abandoned.
 */

export interface StoredBlobRow {
  size: number;
  chunkSet: string;
}

export async function beginBlobUpload(db: Db, id: string, startedAt: string): Promise<void> {
  await db.insertInto('blob_uploads').values({ id, started_at: startedAt }).execute();
}

export async function insertBlobChunk(db: Db, chunkSet: string, seq: number, data: Uint8Array): Promise<void> {
  await db.insertInto('blob_chunks').values({ chunk_set: chunkSet, seq, data }).execute();
}

/**
 * Ends the upload `chunkSet` as the file `hash`, in one transaction. When the file is already stored (another
 * upload of the same bytes finished first) the upload's chunks are dropped instead. Answers whether this
 * upload's chunks became the file.
 */
export async function finishBlobUpload(db: Db, chunkSet: string, hash: string, size: number, at: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx.insertInto('blobs').values({ hash, size, chunk_set: chunkSet, created_at: at })
      .onConflict((conflict) => conflict.column('hash').doNothing())
      .executeTakeFirst();
    const won = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    if (!won) await trx.deleteFrom('blob_chunks').where('chunk_set', '=', chunkSet).execute();
    await trx.deleteFrom('blob_uploads').where('id', '=', chunkSet).execute();
    return won;
  });
}

/** Drops an upload that failed part-way (the stream broke, the size was wrong): its chunks and its row. */
export async function abandonBlobUpload(db: Db, chunkSet: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('blob_chunks').where('chunk_set', '=', chunkSet).execute();
    await trx.deleteFrom('blob_uploads').where('id', '=', chunkSet).execute();
  });
}

export async function findBlob(db: Db, hash: string): Promise<StoredBlobRow | undefined> {
  const row = await db.selectFrom('blobs').select(['size', 'chunk_set']).where('hash', '=', hash).executeTakeFirst();
  return row ? { size: Number(row.size), chunkSet: row.chunk_set } : undefined;
}

export async function findBlobChunk(db: Db, chunkSet: string, seq: number): Promise<Uint8Array | undefined> {
  const row = await db.selectFrom('blob_chunks').select('data').where('chunk_set', '=', chunkSet).where('seq', '=', seq).executeTakeFirst();
  return row?.data;
}

/** Uploads begun before `before` and never finished: what a crash mid-upload leaves. */
export async function listStaleBlobUploads(db: Db, before: string): Promise<string[]> {
  const rows = await db.selectFrom('blob_uploads').select('id').where('started_at', '<', before).execute();
  return rows.map((row) => row.id);
}
