import type { StatRow } from '../analytics/metrics.ts';
import { sumDimension, totalOf } from '../stats/counts.ts';
import type { DayCounts } from '../stats/counts.ts';

/** The names of `GET /api/url/:id/stats`: clicks per day, and the breakdowns a click is counted in. */
export const LINK_METRICS = [
  'browser',
  'city',
  'clicks',
  'country',
  'device',
  'language',
  'os',
  'referrer',
  'region',
  'source',
  'unique_clicks',
  'utm_campaign',
  'utm_content',
  'utm_medium',
  'utm_source',
  'utm_term',
] as const;

/** One name of the link statistics. */
export type LinkMetric = (typeof LINK_METRICS)[number];

// Per-day names and the total each counts.
const BY_DAY: Partial<Record<LinkMetric, string>> = { clicks: 'clicks', unique_clicks: 'uniqueClicks' };

/**
 * The rows of `metric` over some days of a link's (or QR code's) counts: for clicks and
 * unique_clicks one per day with any, oldest first (the value is the day); else the labels summed
 * over the days, count descending and ties by value.
 */
export function linkMetricRows(days: readonly { day: string; counts: DayCounts }[], metric: LinkMetric): StatRow[] {
  const total = BY_DAY[metric];
  if (total) return days.map((d) => ({ value: d.day, count: totalOf(d.counts, total) })).filter((r) => r.count > 0);
  return [...sumDimension(days, metric)]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}
