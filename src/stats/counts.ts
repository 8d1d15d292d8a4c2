import { Turns } from '../turns.ts';
import { admitPropertyDimension, isPropertyDimension, propertyDimensionsOf } from '../store/property-dimensions.ts';
import type { DayCounts, Labels } from '../store/store.ts';

export type { DayCounts, Labels, StatsDay } from '../store/store.ts';

/** What one event adds: amounts to totals, and one more for each given label of each dimension. */
export interface Tally {
  add?: Record<string, number>;
  /** Dimension → label; null or undefined means "nothing for this dimension". */
  labels?: Record<string, string | null | undefined>;
}

/** The label a dimension's new labels are counted under once it holds `maxLabels` distinct ones. */
export const OVERFLOW_LABEL = '(other)';

// Labels come from visitors ("__proto__", "constructor"), so the maps must not inherit anything.
function labelMap(from?: Labels): Labels {
  return Object.assign(Object.create(null) as Labels, from);
}

/** An empty set of counts. */
export function emptyCounts(): DayCounts {
  return Object.create(null) as DayCounts;
}

/** A deep copy whose label maps are safe to fold into. */
export function copyCounts(counts: DayCounts): DayCounts {
  const out = emptyCounts();
  for (const [key, value] of Object.entries(counts)) out[key] = typeof value === 'number' ? value : labelMap(value);
  return out;
}

function labelsOf(counts: DayCounts, dimension: string): Labels {
  const existing = counts[dimension];
  if (typeof existing === 'number') throw new Error(`"${dimension}" is a total, not a dimension`);
  return existing ?? (counts[dimension] = labelMap());
}

/**
 * Folds a tally into `counts` in place (the buffer's hot path). A dimension holding `maxLabels`
 * distinct labels counts further new labels under OVERFLOW_LABEL, and event property dimensions
 * past their cap go under one (property-dimensions.ts), so junk input cannot grow a day without bound.
 */
export function foldInto(counts: DayCounts, tally: Tally, maxLabels = Infinity): DayCounts {
  // for..in over the tally's own literal objects: no entry arrays on a path every click takes.
  const add = tally.add ?? {};
  for (const name in add) {
    const amount = add[name]!;
    if (amount === 0) continue;
    const existing = counts[name];
    if (typeof existing === 'object') throw new Error(`"${name}" is a dimension, not a total`);
    counts[name] = (existing ?? 0) + amount;
  }
  const dimensions = tally.labels ?? {};
  for (const named in dimensions) {
    const label = dimensions[named];
    if (label === null || label === undefined) continue;
    const dimension = isPropertyDimension(named) && !(named in counts) ? admitPropertyDimension(named, propertyDimensionsOf(counts)) : named;
    const labels = labelsOf(counts, dimension);
    const known = Object.hasOwn(labels, label);
    const key = known || Object.keys(labels).length < maxLabels ? label : OVERFLOW_LABEL;
    labels[key] = (labels[key] ?? 0) + 1;
  }
  return counts;
}

/** `counts` with `tally` folded in, as a new value (the pure form of foldInto). */
export function foldTally(counts: DayCounts, tally: Tally, maxLabels = Infinity): DayCounts {
  return foldInto(copyCounts(counts), tally, maxLabels);
}

/** The sum of several days' counts: totals added, label maps merged. */
export function mergeCounts(days: readonly DayCounts[]): DayCounts {
  const out = emptyCounts();
  for (const day of days) addDay(out, day);
  return out;
}

/**
 * mergeCounts of many days (a year of a busy website's: millions of labels), given to the event
 * loop in turns between days (turns.ts): a public stats page or export must not hold every other
 * request for the seconds it takes. `keep`: only those dimensions (the page reads a few).
 */
export async function mergeCountsInTurns(days: readonly DayCounts[], turns = new Turns(), keep?: (dimension: string) => boolean): Promise<DayCounts> {
  const out = emptyCounts();
  for (const day of days) {
    if (turns.due()) await turns.next();
    addDay(out, day, keep);
  }
  return out;
}

// Adds a day's totals, and its dimensions `keep` keeps (all without it).
function addDay(out: DayCounts, day: DayCounts, keep?: (dimension: string) => boolean): void {
  for (const [key, value] of Object.entries(day)) {
    if (typeof value === 'number') {
      const existing = out[key];
      out[key] = (typeof existing === 'number' ? existing : 0) + value;
      continue;
    }
    if (keep && !keep(key)) continue;
    const labels = labelsOf(out, key);
    for (const [label, n] of Object.entries(value)) labels[label] = (labels[label] ?? 0) + n;
  }
}

/** A total of `counts`, 0 when absent. */
export function totalOf(counts: DayCounts, name: string): number {
  const value = counts[name];
  return typeof value === 'number' ? value : 0;
}

/**
 * One dimension's labels summed over some days: only that dimension is read (a whole-day merge
 * would sum every other dimension too, and a stats export asks for twenty).
 */
export function sumDimension(days: readonly { counts: DayCounts }[], name: string): Map<string, number> {
  const sum = new Map<string, number>();
  for (const d of days) {
    const value = d.counts[name];
    if (typeof value !== 'object') continue;
    for (const [label, n] of Object.entries(value)) sum.set(label, (sum.get(label) ?? 0) + n);
  }
  return sum;
}

/** A dimension of `counts` as a label map, empty when absent. */
export function labelsOfDimension(counts: DayCounts, name: string): Labels {
  const value = counts[name];
  return typeof value === 'object' ? value : labelMap();
}
