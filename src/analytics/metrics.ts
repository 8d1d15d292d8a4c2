import { sumDimension, totalOf } from '../stats/counts.ts';
import type { DayCounts } from '../stats/counts.ts';
import { byCountThenValue, keepBest } from '../visits/top.ts';

/**
 * The metric names of the stats API: the real product's (../shared/spec/compat-notes.md) and ours,
 * `region`, `source` and the UTM tags.
 */
export const METRICS = [
  'browser',
  'campaign',
  'city',
  'continent',
  'country',
  'device',
  'event',
  'event_property',
  'landing_page',
  'language',
  'os',
  'page',
  'pageviews',
  'pageviews_hour',
  'referrer',
  'region',
  'resolution',
  'source',
  'utm_campaign',
  'utm_content',
  'utm_medium',
  'utm_source',
  'utm_term',
  'visitors',
  'visitors_hour',
] as const;

/** One metric name. */
export type Metric = (typeof METRICS)[number];

/** One row of the stats API. */
export interface StatRow {
  value: string;
  count: number;
}

/** Metrics counted by date: the value is the day. */
export const BY_DATE = new Set<Metric>(['pageviews', 'visitors']);

/**
 * The rows of `metric` over some days' counts: per day for pageviews and visitors (days without
 * any left out), else labels summed over the days.
 */
export function metricRows(days: readonly { day: string; counts: DayCounts }[], metric: Metric): StatRow[] {
  // event_property needs its event and property: propertyRows (event-properties.ts).
  if (metric === 'event_property') return [];
  if (BY_DATE.has(metric)) {
    return days.map((d) => ({ value: d.day, count: totalOf(d.counts, metric) })).filter((r) => r.count > 0);
  }
  return [...sumDimension(days, metric)].map(([value, count]) => ({ value, count }));
}

/** The `n` largest rows, count descending and ties by value. */
export function topRows(rows: readonly StatRow[], n: number): StatRow[] {
  if (n * 8 >= rows.length) return [...rows].sort(byCountThenValue).slice(0, n);
  // A panel's ten of a year's hundreds of thousands of labels: one pass keeping the best n, not a sort of all.
  const best: StatRow[] = [];
  for (const row of rows) keepBest(best, row, n);
  return best;
}

// topRows of one label map's labels, rows made only for those that may be kept.
export { topLabels } from '../visits/top.ts';
