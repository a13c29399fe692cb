import { PostgresAdapter, sql, type Kysely } from 'kysely';

/*
 * File bytes kept in the database (storage/database-blob-storage.ts), the default on PostgreSQL so that every
 * process reads what another wrote. A file is written as numbered chunks of at most 1 MiB under the id of its
 * upload (`blob_uploads`), so no value is ever the whole file; once every chunk is in, one transaction records
 * the file under its content key (`blobs`, pointing at that chunk set) and ends the upload. An upload that
 * never finishes (a crash) keeps its `blob_uploads` row, which is how the sweep finds its chunks.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const bytesType = postgres ? sql`bytea` : sql`blob`;
  // Files may pass 2 GiB, past PostgreSQL's 32-bit integer.
  const sizeType = postgres ? 'bigint' : 'integer';

  await db.schema
    .createTable('blob_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('blob_uploads_started').on('blob_uploads').column('started_at').execute();

  await db.schema
    .createTable('blob_chunks')
    .addColumn('chunk_set', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', bytesType, (c) => c.notNull())
    .addPrimaryKeyConstraint('blob_chunks_pk', ['chunk_set', 'seq'])
    .execute();

  await db.schema
    .createTable('blobs')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('size', sizeType, (c) => c.notNull())
    .addColumn('chunk_set', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
