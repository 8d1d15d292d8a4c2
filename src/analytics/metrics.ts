import { labelsOfDimension, mergeCounts, totalOf } from '../stats/counts.ts';
import type { DayCounts } from '../stats/counts.ts';

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
const BY_DATE = new Set<Metric>(['pageviews', 'visitors']);

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
  const labels = labelsOfDimension(mergeCounts(days.map((d) => d.counts)), metric);
  return Object.entries(labels).map(([value, count]) => ({ value, count }));
}

/** The `n` largest rows, count descending and ties by value. */
export function topRows(rows: readonly StatRow[], n: number): StatRow[] {
  return [...rows].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)).slice(0, n);
}
