import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { csvDownload, wantsCsv, zipDownload } from '../../http/downloads.ts';
import { findVisible } from '../crud.ts';
import type { Services } from '../../resources/define.ts';
import { propertyRows } from '../../analytics/event-properties.ts';
import { addError, throwIfAny, validate } from '../../analytics/laravel-errors.ts';
import type { FieldErrors } from '../../analytics/laravel-errors.ts';
import { flatPage } from '../../analytics/flat-page.ts';
import { linkQuery, sentQuery, sortRows } from '../../analytics/list-page.ts';
import { metricRows } from '../../analytics/metrics.ts';
import { exportQuery, statsQuery } from '../../analytics/stats-query.ts';
import type { StatsQuery } from '../../analytics/stats-query.ts';
import { websiteSubject } from '../../analytics/website-subject.ts';
import { websites } from '../../analytics/websites.ts';
import type { Website } from '../../analytics/websites.ts';
import { statsExport } from '../../analytics/stats-export.ts';
import { statRowsCsv } from '../../export/csv.ts';

/** A range whose end comes before its start is refused like the real product does. */
function checkRange(q: { from: string; to: string } | undefined, errors: FieldErrors): void {
  if (q && q.to < q.from) addError(errors, 'to', 'The to must be a date after or equal to from.');
}

/** The website of a stats request, visible to the key's user only (another user's answers 404, as a missing one). */
const visibleWebsite = (s: Services, c: Context<AppEnv>) => findVisible<Website>(s, websites, c.req.param('id'), c.get('user').id);

/**
 * `GET /api/v1/stats/{id}`: one metric of a website over a date range, as `{value, count}` rows
 * in the real product's flat Laravel paginator; sorted by `sort_by` count (default) or value, in
 * `sort` order (default desc), ties by value. With `format=csv` (or an Accept header preferring
 * text/csv) every row, sorted the same way, as a CSV file. `GET /api/v1/stats/{id}/realtime`: the
 * last minutes' visitors, pageviews and pages. `GET /api/v1/stats/{id}/export`: every metric of a
 * range, one CSV each, in a zip.
 */
export function statsRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/v1/stats/:id', async (c) => {
    const website = await visibleWebsite(s, c);
    const sent = sentQuery(c.req.query());
    const { output: q, errors } = validate(statsQuery, sent);
    checkRange(q, errors);
    if (q?.name === 'event_property' && q.event === undefined) addError(errors, 'event', 'The event field is required when name is event_property.');
    throwIfAny(errors);
    const query = q as StatsQuery;

    const days = await s.counters.days(websiteSubject(website.id), query.from, query.to);
    let rows = query.name === 'event_property' ? propertyRows(days, query.event!, query.property) : metricRows(days, query.name);
    const needle = query.search?.toLowerCase();
    if (needle) rows = rows.filter((r) => r.value.toLowerCase().includes(needle));
    const sort = query.sort ?? 'desc';
    sortRows(rows, (r) => r.value, 'asc');
    if ((query.sort_by ?? 'count') === 'count') sortRows(rows, (r) => r.count, sort);
    else sortRows(rows, (r) => r.value, sort);

    if (wantsCsv(c, query.format)) return csvDownload(c, statRowsCsv(rows), `${website.domain}-${query.name}-${query.from}-${query.to}.csv`);
    return c.json(flatPage(rows, query.page ?? 1, Number(query.per_page ?? 50), `${s.config.baseUrl}/api/v1/stats/${website.id}`, linkQuery(c.req.query())));
  });

  routes.get('/api/v1/stats/:id/realtime', async (c) => {
    const website = await visibleWebsite(s, c);
    return c.json({ data: await s.counters.realtime(websiteSubject(website.id)), status: 200 });
  });

  routes.get('/api/v1/stats/:id/export', async (c) => {
    const website = await visibleWebsite(s, c);
    const { output: q, errors } = validate(exportQuery, sentQuery(c.req.query()));
    checkRange(q, errors);
    throwIfAny(errors);
    const { from, to } = q!;
    const days = await s.counters.days(websiteSubject(website.id), from, to);
    return zipDownload(c, await statsExport(days, s.clock.now()), `${website.domain}-stats-${from}-${to}.zip`);
  });
  return routes;
}
