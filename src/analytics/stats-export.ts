import { csvOf, statRowsCsv } from '../export/csv.ts';
import { zipOf } from '../export/zip.ts';
import type { DayCounts } from '../stats/counts.ts';
import { allPropertyRows } from './event-properties.ts';
import { METRICS, metricRows, topRows } from './metrics.ts';
import type { Metric, StatRow } from './metrics.ts';

// Metrics whose values are days or hours: listed in time order, as a chart reads them.
const IN_TIME_ORDER = new Set<Metric>(['pageviews', 'visitors', 'pageviews_hour', 'visitors_hour']);

/** The rows of `metric` as an export lists them: days and hours in order, other values most counted first (ties by value). */
function exportRows(days: readonly { day: string; counts: DayCounts }[], metric: Metric): StatRow[] {
  const rows = metricRows(days, metric);
  if (IN_TIME_ORDER.has(metric)) return rows.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return topRows(rows, rows.length);
}

/**
 * A website's statistics over some days as a zip: `<name>.csv` (columns `value,count`) for every
 * stats name, and `event_property.csv` (columns `event,property,value,count`) for the custom
 * events' properties. Every file is there, empty but for its header when nothing was counted.
 */
export function statsExport(days: readonly { day: string; counts: DayCounts }[], at: number): Buffer {
  const files = METRICS.filter((m) => m !== 'event_property').map((m) => ({ name: `${m}.csv`, data: statRowsCsv(exportRows(days, m)) }));
  const properties = allPropertyRows(days).map((r) => [r.event, r.property, r.value, r.count] as const);
  files.push({ name: 'event_property.csv', data: csvOf(['event', 'property', 'value', 'count'], properties) });
  return zipOf(files, at);
}
