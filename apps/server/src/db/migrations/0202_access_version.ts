import { PostgresAdapter, sql, type Kysely } from 'kysely';

/*
 * `organizations.access_version` counts the changes to who reaches which content of the organization: every
 * write to a row that a member's or a guest's reach is computed from adds one to it, in the same transaction,
 * by a trigger of the database. A reader that keeps what it computed from those rows (stores/reach-cache.ts) keeps it
 * with the version it read first, and computes again when the version has moved, so a grant removed or a
 * member taken out of a team takes effect at the next request, in every process that shares the database.
 *
 * Triggers rather than the stores' writes: every write counts, including the ones made by a foreign key's
 * cascade, an admin command or a later migration, and a new write path cannot forget the rule.
 *
 * What changes a reach, and so bumps the version of the organization(s) concerned:
 * - a role granted on a space or a collection, changed or removed (to a user or a team);
 * - someone joining or leaving a team, a team deleted;
 * - a membership created, removed, or its role or suspension changed;
 * - a collection moved (parent or organization), its default level changed, or deleted (a new collection
 *   is empty: it changes no reach until something is put in it, which bumps);
 * - a space created, moved, transferred, its default level changed, deleted or restored (`deleted_at`), or
 *   removed for good.
 * Nothing else: edits, titles, positions, counters and visits leave the version, and so what is kept, alone.
 * A deleted parent (team, collection, space) bumps for itself: its dependants' rows, removed by the cascade,
 * can no longer find their organization through it.
 */

/** A table whose rows decide reaches, and how its row (`new` or `old`) finds the organization. */
interface AccessSource {
  table: string;
  organizationOf: (row: 'new' | 'old') => string;
  insert: boolean;
  /** Updates count when one of these columns changes; every column when empty. */
  update: false | string[];
  delete: boolean;
}

const throughSpace = (row: string) => `(select organization_id from spaces where id = ${row}.space_id)`;
const throughCollection = (row: string) => `(select organization_id from collections where id = ${row}.collection_id)`;
const throughTeam = (row: string) => `(select organization_id from teams where id = ${row}.team_id)`;
const ownColumn = (row: string) => `${row}.organization_id`;

const ACCESS_SOURCES: readonly AccessSource[] = [
  { table: 'space_grants', organizationOf: throughSpace, insert: true, update: [], delete: true },
  { table: 'collection_grants', organizationOf: throughCollection, insert: true, update: [], delete: true },
  { table: 'team_members', organizationOf: throughTeam, insert: true, update: ['team_id', 'user_id'], delete: true },
  { table: 'teams', organizationOf: ownColumn, insert: false, update: ['organization_id'], delete: true },
  { table: 'organization_members', organizationOf: ownColumn, insert: true, update: ['organization_id', 'user_id', 'role', 'disabled'], delete: true },
  { table: 'collections', organizationOf: ownColumn, insert: false, update: ['organization_id', 'parent_id', 'default_level'], delete: true },
  { table: 'spaces', organizationOf: ownColumn, insert: true, update: ['organization_id', 'collection_id', 'default_level', 'deleted_at'], delete: true },
];

const bump = (organization: string) => `update organizations set access_version = access_version + 1 where id = ${organization}`;
const bumpBoth = (source: AccessSource) =>
  `update organizations set access_version = access_version + 1 where id in (${source.organizationOf('old')}, ${source.organizationOf('new')})`;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.alterTable('organizations').addColumn('access_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  for (const source of ACCESS_SOURCES) {
    if (postgres) await createPostgresTriggers(db, source);
    else await createSqliteTriggers(db, source);
  }
}

/** Whether one of the columns changed, `distinct` being the dialect's null-safe inequality. */
const changed = (columns: string[], distinct: string) => columns.map((column) => `old.${column} ${distinct} new.${column}`).join(' or ');

async function createSqliteTriggers(db: Kysely<any>, source: AccessSource): Promise<void> {
  const { table } = source;
  if (source.insert) {
    await sql.raw(`create trigger ${table}_access_insert after insert on ${table} begin ${bump(source.organizationOf('new'))}; end`).execute(db);
  }
  if (source.update) {
    const of = source.update.length > 0 ? ` of ${source.update.join(', ')}` : '';
    const when = source.update.length > 0 ? ` when ${changed(source.update, 'is not')}` : '';
    await sql.raw(`create trigger ${table}_access_update after update${of} on ${table}${when} begin ${bumpBoth(source)}; end`).execute(db);
  }
  if (source.delete) {
    await sql.raw(`create trigger ${table}_access_delete after delete on ${table} begin ${bump(source.organizationOf('old'))}; end`).execute(db);
  }
}

async function createPostgresTriggers(db: Kysely<any>, source: AccessSource): Promise<void> {
  const { table } = source;
  const fn = `${table}_access_changed`;
  // One function per table: it reads the row's own columns, which differ from table to table. Its search
  // path is the migration's, so its table names resolve to this schema whoever writes.
  await sql.raw(`create function ${fn}() returns trigger language plpgsql set search_path from current as $$
    begin
      if tg_op = 'INSERT' then ${bump(source.organizationOf('new'))};
      elsif tg_op = 'DELETE' then ${bump(source.organizationOf('old'))};
      else ${bumpBoth(source)};
      end if;
      return null;
    end $$`).execute(db);
  if (source.insert) {
    await sql.raw(`create trigger ${table}_access_insert after insert on ${table} for each row execute function ${fn}()`).execute(db);
  }
  if (source.update) {
    const of = source.update.length > 0 ? ` of ${source.update.join(', ')}` : '';
    const when = source.update.length > 0 ? ` when (${changed(source.update, 'is distinct from')})` : '';
    await sql.raw(`create trigger ${table}_access_update after update${of} on ${table} for each row${when} execute function ${fn}()`).execute(db);
  }
  if (source.delete) {
    await sql.raw(`create trigger ${table}_access_delete after delete on ${table} for each row execute function ${fn}()`).execute(db);
  }
}
