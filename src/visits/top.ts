/** A label and its count, as lists and panels rank them. */
export interface Ranked {
  value: string;
  count: number;
}

/** Count descending, then value ascending (code units). */
export const byCountThenValue = (a: Ranked, b: Ranked) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

/** Puts `row` in its place among the `n` best so far (sorted), if it belongs there. */
export function keepBest<R extends Ranked>(best: R[], row: R, n: number): void {
  if (n <= 0 || (best.length === n && byCountThenValue(row, best[n - 1]!) >= 0)) return;
  let at = best.length;
  while (at > 0 && byCountThenValue(row, best[at - 1]!) < 0) at--;
  best.splice(at, 0, row);
  if (best.length > n) best.pop();
}

/**
 * The `n` largest of a label map, ranked: one pass keeping the best n, rows made only for those that
 * may be kept (a panel's ten of a year's hundreds of thousands of labels), not a sort of all.
 */
export function topLabels(labels: Map<string, number> | Readonly<Record<string, number>>, n: number): Ranked[] {
  const best: Ranked[] = [];
  const consider = (value: string, count: number) => {
    const worst = best.length === n ? best[n - 1]! : undefined;
    if (worst && (count < worst.count || (count === worst.count && value > worst.value))) return;
    keepBest(best, { value, count }, n);
  };
  if (labels instanceof Map) for (const [value, count] of labels) consider(value, count);
  else for (const value in labels) consider(value, labels[value]!);
  return best;
}

/**
 * The `n` largest counts as `{label: "count"}`, keys in rank order (count descending, ties by label
 * ascending), counts as strings (QR codes, as the reference has them) or, with `as` Number, as
 * integers (links, as the real product answers). Integer-like labels ("404") would be moved to the
 * front by JavaScript's key ordering, so callers must not use them as labels.
 */
export function topCounts<T = string>(counts: Map<string, number> | Record<string, number>, n = 10, as: (count: number) => T = String as unknown as (count: number) => T): Record<string, T> {
  // fromEntries defines own properties, so a "__proto__" label cannot touch the prototype.
  return Object.fromEntries(topLabels(counts, Math.max(0, n)).map((r): [string, T] => [r.value, as(r.count)]));
}
