import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { csvDownload, zipDownload } from '../../http/downloads.ts';
import { pageHeaders } from '../../html/page-headers.ts';
import type { Services } from '../../resources/define.ts';
import { statRowsCsv } from '../../export/csv.ts';
import { propertyRows } from '../../analytics/event-properties.ts';
import { topRows } from '../../analytics/metrics.ts';
import type { Metric } from '../../analytics/metrics.ts';
import { realtimeText } from '../../analytics/realtime-script.ts';
import { statsCsv, statsExport } from '../../analytics/stats-export.ts';
import { messagePage } from '../../analytics/stats-page.ts';
import { PAGE_METRICS } from '../../analytics/stats-panels.ts';
import { MAX_DAYS, dayCount, isDay } from '../../analytics/stats-range.ts';
import type { DayRange } from '../../analytics/stats-range.ts';
import { websiteSubject } from '../../analytics/website-subject.ts';
import type { Website } from '../../analytics/websites.ts';
import { StatsPageGate, pageAnswer } from './stats-page-gate.ts';

// What the page's zip holds: the chart's series and every panel's names (what the page shows).
const ZIP_METRICS: readonly Metric[] = ['pageviews', 'visitors', 'pageviews_hour', 'visitors_hour', ...PAGE_METRICS];

// Downloads and the realtime line are not pages: nothing in them may run, be framed or sniffed.
const fileHeaders = () => ({ ...pageHeaders({ html: '', csp: {}, referrer: 'no-referrer', opener: 'isolated' }), 'cache-control': 'no-store' });

const refusedPage = (c: Context) => pageAnswer(c, messagePage('Sign in first', 'These statistics are not public. Open the statistics page and sign in, then download again.'), 401);
const badRequest = (c: Context, text: string) => pageAnswer(c, messagePage('Bad request', text), 400);

/** The range of a download: two real days in order, at most MAX_DAYS apart; null otherwise. */
function rangeOf(c: Context): DayRange | null {
  const { from, to } = c.req.query();
  return isDay(from) && isDay(to) && from <= to && dayCount({ from, to }) <= MAX_DAYS ? { from, to } : null;
}

const RANGE_TEXT = `from and to must be dates (YYYY-MM-DD), from not after to, at most ${MAX_DAYS} days.`;

/**
 * What the stats page links to, under `/stats/:domain/`, each behind the page's own access rules:
 * `csv?name&from&to` (one panel's stats name, every row, as the stats API's CSV: `value,count`, with
 * `event` and `property` for event_property), `export?from&to` (a zip of what the page shows) and
 * `realtime` (the visitors of the last 5 minutes, JSON, read by the page's script).
 */
export function statsPageDownloadRoutes(s: Services, gate: StatsPageGate): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  // The website, when this download may be had; else the answer to give.
  const open = async (c: Context<AppEnv>, rest: string): Promise<Website | Response> => {
    const website = await gate.find(c, rest);
    if (website instanceof Response) return website;
    if (!(await gate.allowsPage(c, website))) return refusedPage(c);
    return (await gate.admit(c)) ?? website;
  };

  routes.get('/stats/:domain/csv', async (c) => {
    const website = await open(c, '/csv');
    if (website instanceof Response) return website;
    const { name, event, property } = c.req.query();
    const metric = PAGE_METRICS.find((m) => m === name);
    if (metric === undefined) return badRequest(c, `name must be one of ${PAGE_METRICS.join(', ')}.`);
    if (metric === 'event_property' && !event) return badRequest(c, 'event_property needs its event.');
    const range = rangeOf(c);
    if (range === null) return badRequest(c, RANGE_TEXT);
    const days = await s.counters.days(websiteSubject(website.id), range.from, range.to);
    const csv = metric === 'event_property' ? statRowsCsv(topRows(propertyRows(days, event!, property || undefined), Infinity)) : statsCsv(days, metric);
    const response = csvDownload(c, csv, `${website.domain}-${metric}-${range.from}-${range.to}.csv`);
    for (const [header, value] of Object.entries(fileHeaders())) response.headers.set(header, value);
    return response;
  });

  routes.get('/stats/:domain/export', async (c) => {
    const website = await open(c, '/export');
    if (website instanceof Response) return website;
    const range = rangeOf(c);
    if (range === null) return badRequest(c, RANGE_TEXT);
    const days = await s.counters.days(websiteSubject(website.id), range.from, range.to);
    const response = zipDownload(c, await statsExport(days, s.clock.now(), ZIP_METRICS), `${website.domain}-stats-${range.from}-${range.to}.zip`);
    for (const [header, value] of Object.entries(fileHeaders())) response.headers.set(header, value);
    return response;
  });

  routes.get('/stats/:domain/realtime', async (c) => {
    const website = await gate.find(c, '/realtime');
    if (website instanceof Response) return website;
    if (!(await gate.allowsScript(c, website))) return c.json({ error: 'These statistics are not public: sign in on the statistics page.' }, 401, fileHeaders());
    const { visitors } = await s.counters.realtime(websiteSubject(website.id));
    return c.json({ visitors, text: realtimeText(visitors) }, 200, fileHeaders());
  });
  return routes;
}
