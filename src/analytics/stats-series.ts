import { labelsOfDimension, totalOf } from '../stats/counts.ts';
import type { DayCounts } from '../stats/counts.ts';
import { daysOf, intervalOf } from './stats-range.ts';
import type { DayRange, Interval } from './stats-range.ts';

/** A website's stored days, as the counters give them (days without a count are absent). */
export type StoredDays = readonly { day: string; counts: DayCounts }[];

/** The chart of a range: one point per hour, day or month, the pageviews and visitors of each. */
export interface Series {
  interval: Interval;
  /** Each point's name as the chart and its table show it ("14:00", "2026-11-21", "Nov 2026"). */
  labels: string[];
  pageviews: number[];
  visitors: number[];
  /** Set when a day's hours were asked for but are no longer kept: the chart shows the day's totals. */
  hoursGone?: boolean;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Nov 2026" for '2026-11'. */
const monthName = (month: string) => `${MONTHS[Number(month.slice(5, 7)) - 1] ?? ''} ${month.slice(0, 4)}`;

/**
 * The chart series of `range`: by hour for one day (its `pageviews_hour` and `visitors_hour`, up
 * to the current hour when the day is today), by month for long ranges, else by day. A day whose
 * hourly detail retention removed (STATS_HOURLY_DAYS) is shown as its day, with `hoursGone`.
 */
export function chartSeries(days: StoredDays, range: DayRange, nowMs: number): Series {
  const interval = intervalOf(range);
  const byDay = new Map(days.map((d) => [d.day, d.counts]));
  const total = (day: string, name: string) => totalOf(byDay.get(day) ?? {}, name);
  if (interval === 'hour') {
    const counts = byDay.get(range.from);
    const hoursGone = counts !== undefined && totalOf(counts, 'pageviews') > 0 && counts.pageviews_hour === undefined;
    if (!hoursGone) {
      const now = new Date(nowMs).toISOString();
      // Hours still to come today are not zeros: the chart stops at this hour.
      const last = range.from === now.slice(0, 10) ? Number(now.slice(11, 13)) : 23;
      const hours = Array.from({ length: last + 1 }, (_, h) => String(h).padStart(2, '0'));
      const of = (name: string) => labelsOfDimension(counts ?? {}, name);
      return { interval, labels: hours.map((h) => `${h}:00`), pageviews: hours.map((h) => of('pageviews_hour')[h] ?? 0), visitors: hours.map((h) => of('visitors_hour')[h] ?? 0) };
    }
    return { interval: 'day', labels: [range.from], pageviews: [total(range.from, 'pageviews')], visitors: [total(range.from, 'visitors')], hoursGone };
  }
  const all = daysOf(range);
  if (interval === 'day') return { interval, labels: all, pageviews: all.map((d) => total(d, 'pageviews')), visitors: all.map((d) => total(d, 'visitors')) };
  const months = [...new Set(all.map((d) => d.slice(0, 7)))];
  const sumOf = (month: string, name: string) => days.reduce((sum, d) => (d.day.startsWith(month) ? sum + totalOf(d.counts, name) : sum), 0);
  return { interval, labels: months.map(monthName), pageviews: months.map((m) => sumOf(m, 'pageviews')), visitors: months.map((m) => sumOf(m, 'visitors')) };
}

/** The headline figures of some days: visitors (a visitor counts once a day), pageviews, and views per visit. */
export interface Headline {
  visitors: number;
  pageviews: number;
  /** Pageviews per visitor-day; null without visitors. */
  viewsPerVisit: number | null;
}

/** The headline figures of `days` (only those of the range should be given). */
export function headlineOf(days: StoredDays): Headline {
  const visitors = days.reduce((n, d) => n + totalOf(d.counts, 'visitors'), 0);
  const pageviews = days.reduce((n, d) => n + totalOf(d.counts, 'pageviews'), 0);
  return { visitors, pageviews, viewsPerVisit: visitors > 0 ? Math.round((pageviews / visitors) * 100) / 100 : null };
}

/** The change from `before` to `now` in whole percent; null when there was nothing before to compare with. */
export function percentChange(now: number | null, before: number | null): number | null {
  if (now === null || before === null || before === 0) return null;
  return Math.round(((now - before) / before) * 100);
}
