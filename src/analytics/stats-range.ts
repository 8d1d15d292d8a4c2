import { formatDate } from '../clock.ts';

const DAY_MS = 86_400_000;

/** The longest range the stats page shows, days (a year, leap years included). */
export const MAX_DAYS = 366;

/** The stats page's date presets, as its `period` query parameter names them. */
export const PERIODS = ['today', 'yesterday', '7d', '30d', 'month', 'last-month', '12mo', 'custom'] as const;

/** One of PERIODS. */
export type Period = (typeof PERIODS)[number];

/** What the page calls each preset. */
export const PERIOD_NAMES: Readonly<Record<Period, string>> = {
  today: 'Today',
  yesterday: 'Yesterday',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  month: 'This month',
  'last-month': 'Last month',
  '12mo': 'Last 12 months',
  custom: 'Custom range',
};

/** A range of UTC days, both ends included ('YYYY-MM-DD'). */
export interface DayRange {
  from: string;
  to: string;
}

/** The range a stats page shows: its preset, its days, and a notice when the query's own could not be used. */
export interface StatsRange extends DayRange {
  period: Period;
  notice?: string;
}

/** How the page's chart groups the range: by hour (one day), by day, or by month (long ranges). */
export type Interval = 'hour' | 'day' | 'month';

const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** Whether `s` is a real calendar day written YYYY-MM-DD. */
export const isDay = (s: string | undefined): s is string => !!s && /^\d{4}-\d{2}-\d{2}$/.test(s) && formatDate(dayMs(s) || 0) === s;

/** The day `n` days after `day` (before, when negative). */
export const addDays = (day: string, n: number): string => formatDate(dayMs(day) + n * DAY_MS);

/** Days from `from` to `to`, both included. */
export const dayCount = (range: DayRange): number => Math.round((dayMs(range.to) - dayMs(range.from)) / DAY_MS) + 1;

/** The first day of the month `n` months after the month of `day` (before, when negative). */
function monthStart(day: string, n: number): string {
  const d = new Date(dayMs(day));
  return formatDate(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
}

/** The last day of the month of `day`. */
const monthEnd = (day: string): string => addDays(monthStart(day, 1), -1);

/** The days of a preset, on the UTC day of `nowMs`. */
export function presetRange(period: Exclude<Period, 'custom'>, nowMs: number): DayRange {
  const today = formatDate(nowMs);
  switch (period) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday':
      return { from: addDays(today, -1), to: addDays(today, -1) };
    case '7d':
      return { from: addDays(today, -6), to: today };
    case '30d':
      return { from: addDays(today, -29), to: today };
    case 'month':
      return { from: monthStart(today, 0), to: today };
    case 'last-month':
      return { from: monthStart(today, -1), to: addDays(monthStart(today, 0), -1) };
    case '12mo':
      // Twelve whole months with this one, so the monthly chart has no cut first month.
      return { from: monthStart(today, -11), to: today };
  }
}

const INVALID = `Invalid date range (dates as YYYY-MM-DD, from before to, at most ${MAX_DAYS} days): showing the last 30 days.`;

/**
 * The range of a stats page request: a preset (`period`), or `from` and `to` (`period=custom`, or
 * no period: the form and older links), else the last 30 days. A custom range that is not two real
 * days in order, at most MAX_DAYS long, and an unknown period give the last 30 days with a notice.
 */
export function statsRange(query: { period?: string; from?: string; to?: string }, nowMs: number): StatsRange {
  const fallback = (notice?: string): StatsRange => ({ period: '30d', ...presetRange('30d', nowMs), ...(notice ? { notice } : {}) });
  const { period, from, to } = query;
  const custom = period === 'custom' || (period === undefined && (from !== undefined || to !== undefined));
  if (custom) {
    if (isDay(from) && isDay(to) && from <= to && dayCount({ from, to }) <= MAX_DAYS) return { period: 'custom', from, to };
    return fallback(INVALID);
  }
  if (period === undefined) return fallback();
  const known = PERIODS.find((p) => p === period);
  if (known === undefined || known === 'custom') return fallback(`Unknown period: showing the last 30 days. Periods: ${PERIODS.join(', ')}.`);
  return { period: known, ...presetRange(known, nowMs) };
}

/**
 * The period a range is compared with. A range starting on the 1st of a month is compared with the
 * same days of as many months before (this month with the same days of last month, last month with
 * the whole month before, 12 months with the 12 before), each end kept inside its month; any other,
 * with as many days right before it.
 */
export function previousRange(range: DayRange): DayRange {
  if (range.from.endsWith('-01')) {
    const [fy, fm] = range.from.split('-').map(Number) as [number, number];
    const [ty, tm, td] = range.to.split('-').map(Number) as [number, number, number];
    const months = (ty - fy) * 12 + (tm - fm) + 1;
    const from = monthStart(range.from, -months);
    const lastMonth = monthStart(range.to, -months);
    const end = monthEnd(lastMonth);
    const to = `${lastMonth.slice(0, 8)}${String(td).padStart(2, '0')}`;
    return { from, to: isDay(to) && to <= end ? to : end };
  }
  const n = dayCount(range);
  return { from: addDays(range.from, -n), to: addDays(range.from, -1) };
}

/** How the chart of a range groups it: one day by hour, more than 92 days (about a quarter) by month, else by day. */
export function intervalOf(range: DayRange): Interval {
  const n = dayCount(range);
  return n === 1 ? 'hour' : n > 92 ? 'month' : 'day';
}

/** Every day of a range, in order. */
export function daysOf(range: DayRange): string[] {
  const out: string[] = [];
  for (let day = range.from; day <= range.to; day = addDays(day, 1)) out.push(day);
  return out;
}
