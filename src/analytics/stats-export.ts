import { csvOf, statRowsCsv, statRowsCsvInTurns } from '../export/csv.ts';
import { zipOffLoop } from '../export/zip.ts';
import { sortInTurns, Turns } from '../turns.ts';
import { byCountThenValue } from '../visits/top.ts';
import { mergeCountsInTurns } from '../stats/counts.ts';
import type { DayCounts } from '../stats/counts.ts';
import { allPropertyRows } from './event-properties.ts';
import { BY_DATE, METRICS, metricRows, topRows } from './metrics.ts';
import type { Metric, StatRow } from './metrics.ts';

// Metrics whose values are days or hours: listed in time order, as a chart reads them.
const IN_TIME_ORDER = new Set<Metric>(['pageviews', 'visitors', 'pageviews_hour', 'visitors_hour']);

const byValue = (a: StatRow, b: StatRow) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

/** The rows of `metric` as an export lists them: days and hours in order, other values most counted first (ties by value). */
function exportRows(days: readonly { day: string; counts: DayCounts }[], metric: Metric): StatRow[] {
  const rows = metricRows(days, metric);
  return IN_TIME_ORDER.has(metric) ? rows.sort(byValue) : topRows(rows, rows.length);
}

/**
 * A website's statistics over some days as a zip: `<name>.csv` (columns `value,count`) for every
 * stats name of `names` (default: all), and `event_property.csv` (columns `event,property,value,count`)
 * for the custom events' properties when `names` has event_property. Every file is there, empty but
 * for its header when nothing was counted.
 */
export async function statsExport(days: readonly { day: string; counts: DayCounts }[], at: number, names: readonly Metric[] = METRICS): Promise<Buffer> {
  // The days summed once, in turns of the event loop; every file but the per-day ones reads that sum.
  const turns = new Turns();
  const summed = [{ day: '', counts: await mergeCountsInTurns(days.map((d) => d.counts), turns) }];
  const files: { name: string; data: string }[] = [];
  for (const m of names) {
    if (m === 'event_property') continue;
    if (turns.due()) await turns.next();
    const rows = metricRows(BY_DATE.has(m) ? days : summed, m);
    const ordered = await sortInTurns(rows, IN_TIME_ORDER.has(m) ? byValue : byCountThenValue, turns);
    files.push({ name: `${m}.csv`, data: await statRowsCsvInTurns(ordered, turns) });
  }
  if (names.includes('event_property')) {
    const properties = allPropertyRows(summed[0]!.counts).map((r) => [r.event, r.property, r.value, r.count] as const);
    files.push({ name: 'event_property.csv', data: csvOf(['event', 'property', 'value', 'count'], properties) });
  }
  return zipOffLoop(files, at);
}

/** The rows of one stats name over some days as its CSV file lists them (see statsExport): a stats page's CSV link. */
export function statsCsv(days: readonly { day: string; counts: DayCounts }[], metric: Metric): string {
  return statRowsCsv(exportRows(days, metric));
}
