import { statRowsCsv } from '../export/csv.ts';
import { zipOf } from '../export/zip.ts';
import { labelsOfDimension, mergeCounts, totalOf } from '../stats/counts.ts';
import type { DayCounts } from '../stats/counts.ts';

/** A link's per-day totals in its export: the file's name and the total it counts. */
const PER_DAY = [
  ['clicks', 'clicks'],
  ['unique_clicks', 'uniqueClicks'],
] as const;

/** The breakdowns every link export holds, counted or not; any other dimension the days hold comes too. */
const BREAKDOWNS = ['browser', 'country', 'device', 'language', 'os', 'referrer', 'social'];

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A link's (or QR code's) statistics over some days as a zip of CSV files (columns `value,count`):
 * `clicks.csv` and `unique_clicks.csv` per day in order, then one file per breakdown, most counted first.
 */
export function linkStatsExport(days: readonly { day: string; counts: DayCounts }[], at: number): Buffer {
  const files = PER_DAY.map(([name, total]) => ({
    name: `${name}.csv`,
    data: statRowsCsv(days.map((d) => ({ value: d.day, count: totalOf(d.counts, total) })).filter((r) => r.count > 0)),
  }));
  const sum = mergeCounts(days.map((d) => d.counts));
  const breakdowns = new Set([...BREAKDOWNS, ...Object.keys(sum).filter((k) => typeof sum[k] === 'object')]);
  for (const name of [...breakdowns].sort(byText)) {
    const rows = Object.entries(labelsOfDimension(sum, name)).map(([value, count]) => ({ value, count }));
    rows.sort((a, b) => b.count - a.count || byText(a.value, b.value));
    files.push({ name: `${name}.csv`, data: statRowsCsv(rows) });
  }
  return zipOf(files, at);
}
