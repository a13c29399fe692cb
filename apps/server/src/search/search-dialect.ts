import { PostgresAdapter, sql, type RawBuilder } from 'kysely';
import type { Db, DialectName } from '../db/index.js';
import type { SearchTerms } from './search-text.js';

/*
 * Everything about search that differs between SQLite (FTS5) and PostgreSQL (tsvector), in one place.
 * Both build their query from the parsed terms only (letters, digits and marks), never from the raw text.
 */

/** The dialect of a Kysely instance or transaction, so that callers need not pass it along. */
export function dialectOf(db: Db): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Relative weight of a match in the page title, a section title and the body. SQLite's bm25 multiplies
 * each column's score by these; PostgreSQL's ts_rank uses its own weights for A, B and C (1.0, 0.4, 0.2),
 * which keep the same order.
 */
export const COLUMN_WEIGHTS = { pageTitle: 10, sectionTitle: 5, body: 1 } as const;

/**
 * The FTS5 MATCH expression: every term a quoted string (so `NEAR`, `OR`, `*`, `-`, `:`, parentheses are
 * just text), all required (implicit AND), the last one with `*` when it is matched as a prefix.
 */
export function ftsMatchExpression({ terms, prefix }: SearchTerms): string {
  return terms
    .map((term, index) => `"${term.replaceAll('"', '""')}"${prefix && index === terms.length - 1 ? '*' : ''}`)
    .join(' ');
}

/**
 * The tsquery: each term folded in SQL by the same function as the index (so both sides agree exactly),
 * quoted as one lexeme, and combined with `&&`; the last with `:*` when it is matched as a prefix. The
 * terms hold no quote or backslash, so the quoting cannot be escaped.
 */
export function tsQueryExpression({ terms, prefix }: SearchTerms): RawBuilder<unknown> {
  return sql.join(
    terms.map((term, index) => {
      const suffix = prefix && index === terms.length - 1 ? "':*" : "'";
      return sql`to_tsquery('simple', '''' || quire_search_fold(${term}) || ${suffix})`;
    }),
    sql` && `,
  );
}

export interface CandidateScope {
  spaceId: string;
  /** Row ids of the space: [first, end). */
  firstRow: number;
  endRow: number;
  candidateLimit: number;
}

/**
 * The ranked candidates, as a CTE body yielding (id, page_id, section_position, depth, score), lower score
 * first. The cap comes before ranking: the inner query takes at most `candidateLimit` matching rows in index
 * order (FTS5: rowid order, which stops the scan early; PostgreSQL: the order of the bitmap heap scan), and
 * only those are scored. Without it, a query whose words are in most pages would score every row.
 */
export function rankedCandidates(dialect: DialectName, terms: SearchTerms, scope: CandidateScope): RawBuilder<unknown> {
  if (dialect === 'sqlite') {
    const { pageTitle, sectionTitle, body } = COLUMN_WEIGHTS;
    return sql`
      select s.id, s.page_id, s.section_position, s.depth, f.score
      from (
        select rowid as row_id, bm25(search_fts, ${sql.lit(pageTitle)}, ${sql.lit(sectionTitle)}, ${sql.lit(body)}) as score
        from search_fts
        where search_fts match ${ftsMatchExpression(terms)} and rowid >= ${scope.firstRow} and rowid < ${scope.endRow}
        limit ${scope.candidateLimit}
      ) f
      -- CROSS JOIN keeps this join order in SQLite: rows are looked up by id from the few candidates, not
      -- the candidates probed from every row of the space (which the space_id index would tempt it to do).
      cross join search_sections s
      where s.id = f.row_id and s.space_id = ${scope.spaceId}`;
  }
  // ts_rank normalization 1 divides by 1 + log(length), so a long body does not win by length alone.
  return sql`
    select c.id, c.page_id, c.section_position, c.depth, (-ts_rank(c.search_vector, c.query, 1))::float8 as score
    from (
      select s.id, s.page_id, s.section_position, s.depth, s.search_vector, q.query
      from search_sections s cross join (select ${tsQueryExpression(terms)} as query) q
      where s.space_id = ${scope.spaceId} and s.search_vector @@ q.query
      limit ${scope.candidateLimit}
    ) c`;
}
