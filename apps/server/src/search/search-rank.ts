import { foldWord } from './search-text.js';

/*
 * The ranking of search, the same on both databases and computed here rather than by FTS5's bm25 or
 * PostgreSQL's ts_rank, so that it can be read best-first (search-query.ts) and kept up to date one page at a
 * time (search-index.ts).
 *
 * A section's score for a query is the sum over its words of idf(word) x impact(word, section):
 * - impact is BM25's saturated term frequency per column (page title, section title, body), weighted 10, 5
 *   and 1, each column's length normalized against a FIXED reference length rather than the space's average.
 *   It depends on the section alone, so it can be stored with the section and stays right whatever else the
 *   space holds (BM25 with the live average would change every stored impact at every edit).
 * - idf is BM25's, from the number of sections of the space that hold the word (search_terms), so rarer words
 *   weigh more.
 * The last word, matched as a prefix, has as impact the highest impact of the words it starts.
 *
 * The impact-ordered index (search_postings) keeps, per word, the sections where its impact is at least
 * POSTING_MIN_IMPACT, so every section not listed for a word has an impact below that: the bound that lets a
 * search stop reading. How many words of one section can reach it is bounded (see MAX_POSTINGS_PER_SECTION).
 */

/** BM25's constants, as FTS5 and Lucene use them. */
const K1 = 1.2;
const B = 0.75;

/** Weight and reference length (words) of each column: page title, section title, body. */
export const RANK_COLUMNS = [
  { weight: 10, referenceLength: 4 },
  { weight: 5, referenceLength: 3 },
  { weight: 1, referenceLength: 50 },
] as const;

/**
 * A word is listed in search_postings for a section when its impact there reaches this: any word of a page
 * title or a heading of usual length, a word once in a body of at most about 20 words, twice in one of about
 * 60, and so on.
 */
export const POSTING_MIN_IMPACT = 1.3;

/**
 * The bound on the postings of one section. For a column of weight w, a word reaches the threshold only when
 * w x sat(tf, len) >= POSTING_MIN_IMPACT / 3 in some column (three columns add up to it), which needs
 * tf >= s k1 (1 - b + b len / L) / (k1 + 1 - s) with s = POSTING_MIN_IMPACT / (3 w); as the column's
 * term frequencies add up to len, at most len / that many words do, which is below L (k1 + 1 - s) / (s k1 b)
 * whatever len is. The sum over the columns, rounded up: checked by a test, and enforced when rows are made.
 */
export const MAX_POSTINGS_PER_SECTION = Math.ceil(RANK_COLUMNS.reduce((total, { weight, referenceLength }) => {
  const s = POSTING_MIN_IMPACT / 3 / weight;
  return total + (referenceLength * (K1 + 1 - s)) / (s * K1 * B);
}, 0));

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** The words of a section: per folded word, its count in each column; and each column's length in words. */
export interface SectionWords {
  counts: Map<string, [number, number, number]>;
  lengths: [number, number, number];
}

export function sectionWords(pageTitle: string, sectionTitle: string, body: string): SectionWords {
  const counts = new Map<string, [number, number, number]>();
  const lengths: [number, number, number] = [0, 0, 0];
  [pageTitle, sectionTitle, body].forEach((text, column) => {
    for (const found of text.matchAll(WORD)) {
      const word = foldWord(found[0]);
      let entry = counts.get(word);
      if (!entry) counts.set(word, (entry = [0, 0, 0]));
      entry[column]!++;
      lengths[column]!++;
    }
  });
  return { counts, lengths };
}

/** The impact of a word with these counts in a section with these column lengths (0 when absent). */
export function impactOf(counts: readonly [number, number, number], lengths: readonly [number, number, number]): number {
  let impact = 0;
  for (let column = 0; column < 3; column++) {
    const tf = counts[column]!;
    if (tf === 0) continue;
    const { weight, referenceLength } = RANK_COLUMNS[column]!;
    impact += (weight * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[column]!) / referenceLength));
  }
  return impact;
}

/** BM25's idf: `sections` of the space's `total` hold the word. Always positive. */
export function idfOf(sections: number, total: number): number {
  const df = Math.min(Math.max(sections, 0), total);
  return Math.log(1 + (total - df + 0.5) / (df + 0.5));
}

/** The postings of a section: every word whose impact reaches POSTING_MIN_IMPACT, best first. */
export function sectionPostings(words: SectionWords): Array<{ term: string; impact: number }> {
  const postings: Array<{ term: string; impact: number }> = [];
  for (const [term, counts] of words.counts) {
    const impact = impactOf(counts, words.lengths);
    if (impact >= POSTING_MIN_IMPACT) postings.push({ term, impact });
  }
  if (postings.length > MAX_POSTINGS_PER_SECTION) throw new Error(`a section has ${postings.length} postings, above the bound of ${MAX_POSTINGS_PER_SECTION}`);
  return postings.sort((a, b) => b.impact - a.impact || (a.term < b.term ? -1 : 1));
}

/** A query word: folded, and whether it matches as a prefix. */
export interface RankTerm {
  term: string;
  prefix: boolean;
}

export function rankTerms(terms: readonly string[], prefix: boolean): RankTerm[] {
  return terms.map((term, index) => ({ term: foldWord(term), prefix: prefix && index === terms.length - 1 }));
}

/**
 * The impact of each query word in a section, or undefined when the section lacks one of them (a section
 * matches when it holds every word).
 */
export function queryImpacts(words: SectionWords, terms: readonly RankTerm[]): number[] | undefined {
  const impacts: number[] = [];
  for (const { term, prefix } of terms) {
    let best = -1;
    if (prefix) {
      for (const [word, counts] of words.counts) if (word.startsWith(term)) best = Math.max(best, impactOf(counts, words.lengths));
    } else {
      const counts = words.counts.get(term);
      if (counts) best = impactOf(counts, words.lengths);
    }
    if (best < 0) return undefined;
    impacts.push(best);
  }
  return impacts;
}

/** The end (exclusive) of the range of words that start with `prefix`, for `term >= prefix and term < end`. */
export function prefixEnd(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}
