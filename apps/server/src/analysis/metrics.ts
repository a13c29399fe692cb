/*
 * Quality of a grouping against true labels: purity (the share of items that belong to their cluster's
 * majority label) and the adjusted Rand index (Hubert and Arabie, 1985: agreement of the two partitions on
 * every pair of items, 1 for identical partitions, about 0 for a random one).
 */

function choose2(n: number): number {
  return (n * (n - 1)) / 2;
}

function contingency(predicted: readonly string[], truth: readonly string[]): Map<string, Map<string, number>> {
  if (predicted.length !== truth.length) throw new RangeError('predicted and true labels differ in length');
  const table = new Map<string, Map<string, number>>();
  predicted.forEach((cluster, index) => {
    const row = table.get(cluster) ?? new Map<string, number>();
    row.set(truth[index]!, (row.get(truth[index]!) ?? 0) + 1);
    table.set(cluster, row);
  });
  return table;
}

export function purity(predicted: readonly string[], truth: readonly string[]): number {
  if (predicted.length === 0) return 1;
  let majority = 0;
  for (const row of contingency(predicted, truth).values()) majority += Math.max(...row.values());
  return majority / predicted.length;
}

export function adjustedRandIndex(predicted: readonly string[], truth: readonly string[]): number {
  const n = predicted.length;
  if (n < 2) return 1;
  const table = contingency(predicted, truth);
  let sumCells = 0;
  const rowSums: number[] = [];
  const columnSums = new Map<string, number>();
  for (const row of table.values()) {
    let rowSum = 0;
    for (const [label, count] of row) {
      sumCells += choose2(count);
      rowSum += count;
      columnSums.set(label, (columnSums.get(label) ?? 0) + count);
    }
    rowSums.push(rowSum);
  }
  const sumRows = rowSums.reduce((sum, count) => sum + choose2(count), 0);
  const sumColumns = [...columnSums.values()].reduce((sum, count) => sum + choose2(count), 0);
  const expected = (sumRows * sumColumns) / choose2(n);
  const maximum = (sumRows + sumColumns) / 2;
  if (maximum === expected) return 1;
  return (sumCells - expected) / (maximum - expected);
}
