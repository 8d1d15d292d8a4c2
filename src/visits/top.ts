/**
 * The `n` largest counts as `{label: "count"}`, keys in rank order (count descending, ties by label
 * ascending), counts as strings (QR codes, as the reference has them) or, with `as` Number, as
 * integers (links, as the real product answers). Integer-like labels ("404") would be moved to the
 * front by JavaScript's key ordering, so callers must not use them as labels.
 */
export function topCounts<T = string>(counts: Map<string, number> | Record<string, number>, n = 10, as: (count: number) => T = String as unknown as (count: number) => T): Record<string, T> {
  const entries = counts instanceof Map ? [...counts] : Object.entries(counts);
  const ranked = entries
    .sort(([labelA, countA], [labelB, countB]) => countB - countA || (labelA < labelB ? -1 : labelA > labelB ? 1 : 0))
    .slice(0, Math.max(0, n))
    .map(([label, count]): [string, T] => [label, as(count)]);
  // fromEntries defines own properties, so a "__proto__" label cannot touch the prototype.
  return Object.fromEntries(ranked);
}
