import { statRowsCsv, statRowsCsvInTurns } from '../export/csv.ts';
import { zipOffLoop } from '../export/zip.ts';
import { labelsOfDimension, mergeCountsInTurns, totalOf } from '../stats/counts.ts';
import { sortInTurns, Turns } from '../turns.ts';
import { byCountThenValue } from '../visits/top.ts';
import type { Ranked } from '../visits/top.ts';
import type { DayCounts } from '../stats/counts.ts';

/** A link's per-day totals in its export: the file's name and the total it counts. */
const PER_DAY = [
  ['clicks', 'clicks'],
  ['unique_clicks', 'uniqueClicks'],
] as const;

/** The breakdowns every link export holds, counted or not; any other dimension the days hold comes too. */
const BREAKDOWNS = ['browser', 'country', 'device', 'language', 'os', 'referrer', 'social'];

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A label map's labels as rows, made between turns of the event loop. */
async function labelRows(labels: Readonly<Record<string, number>>, turns: Turns): Promise<Ranked[]> {
  const rows: Ranked[] = [];
  for (const value in labels) {
    if ((rows.length & 4095) === 0 && turns.due()) await turns.next();
    rows.push({ value, count: labels[value]! });
  }
  return rows;
}

/**
 * A link's (or QR code's) statistics over some days as a zip of CSV files (columns `value,count`):
 * `clicks.csv` and `unique_clicks.csv` per day in order, then one file per breakdown, most counted first.
 */
export async function linkStatsExport(days: readonly { day: string; counts: DayCounts }[], at: number): Promise<Buffer> {
  // A year of a busy link's labels: summed a day at a time, the files made between turns of the event loop, deflated on libuv's threads.
  const turns = new Turns();
  const files = PER_DAY.map(([name, total]) => ({
    name: `${name}.csv`,
    data: statRowsCsv(days.map((d) => ({ value: d.day, count: totalOf(d.counts, total) })).filter((r) => r.count > 0)),
  }));
  const sum = await mergeCountsInTurns(days.map((d) => d.counts), turns);
  const breakdowns = new Set([...BREAKDOWNS, ...Object.keys(sum).filter((k) => typeof sum[k] === 'object')]);
  for (const name of [...breakdowns].sort(byText)) {
    if (turns.due()) await turns.next();
    const rows = await sortInTurns(await labelRows(labelsOfDimension(sum, name), turns), byCountThenValue, turns);
    files.push({ name: `${name}.csv`, data: await statRowsCsvInTurns(rows, turns) });
  }
  return zipOffLoop(files, at);
}
