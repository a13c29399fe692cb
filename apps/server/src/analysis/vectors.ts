/** Sparse term vectors (term -> weight) and the few operations the grouping needs. Maps keep insertion order, so every loop here is deterministic. */
export type TermVector = Map<string, number>;

export function addInto(target: TermVector, vector: ReadonlyMap<string, number>, factor = 1): void {
  for (const [term, weight] of vector) {
    const next = (target.get(term) ?? 0) + factor * weight;
    if (Math.abs(next) < 1e-9) target.delete(term);
    else target.set(term, next);
  }
}

export function norm(vector: ReadonlyMap<string, number>, weight: (term: string) => number = () => 1): number {
  let sum = 0;
  for (const [term, value] of vector) {
    const weighted = value * weight(term);
    sum += weighted * weighted;
  }
  return Math.sqrt(sum);
}

/** Cosine similarity, each coordinate multiplied by `weight(term)` first (IDF; 1 when not given). */
export function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, weight: (term: string) => number = () => 1): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, value] of small) {
    const other = large.get(term);
    if (other !== undefined) {
      const w = weight(term);
      dot += value * w * other * w;
    }
  }
  if (dot === 0) return 0;
  return dot / (norm(a, weight) * norm(b, weight));
}

/** The `limit` heaviest terms (ties by term, so the cut is deterministic). */
export function topTerms(vector: ReadonlyMap<string, number>, limit: number): TermVector {
  if (vector.size <= limit) return new Map(vector);
  const entries = [...vector].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return new Map(entries.slice(0, limit));
}

export function toRecord(vector: ReadonlyMap<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [term, value] of vector) out[term] = Math.round(value * 1e6) / 1e6;
  return out;
}

export function fromRecord(record: Readonly<Record<string, number>>): TermVector {
  return new Map(Object.entries(record));
}
