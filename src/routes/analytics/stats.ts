import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from '../../http/app-env.ts';
import { findVisible } from '../crud.ts';
import type { Services } from '../../resources/define.ts';
import { dateField } from '../../analytics/form-fields.ts';
import { addError, throwIfAny, validate } from '../../analytics/laravel-errors.ts';
import { flatPage } from '../../analytics/flat-page.ts';
import { linkQuery, listQuery, sentQuery, sortRows } from '../../analytics/list-page.ts';
import { METRICS, metricRows } from '../../analytics/metrics.ts';
import { websiteSubject } from '../../analytics/website-subject.ts';
import { websites } from '../../analytics/websites.ts';

const statsQuery = listQuery(['value'], ['count', 'value'], {
  name: v.picklist(METRICS, `The selected name is invalid. Valid names: ${METRICS.join(', ')}.`),
  from: dateField('from'),
  to: dateField('to'),
});

/**
 * `GET /api/v1/stats/{id}`: one metric of a website over a date range, as `{value, count}` rows
 * in the real product's flat Laravel paginator; sorted by `sort_by` count (default) or value, in
 * `sort` order (default desc), ties by value.
 */
export function statsRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/v1/stats/:id', async (c) => {
    const id = c.req.param('id');
    const website = await findVisible(s, websites, id, c.get('user').id);
    const sent = sentQuery(c.req.query());
    const { output: q, errors } = validate(statsQuery, sent);
    if (q && q.to < q.from) addError(errors, 'to', 'The to must be a date after or equal to from.');
    throwIfAny(errors);
    const query = q as v.InferOutput<typeof statsQuery>;

    let rows = metricRows(await s.counters.days(websiteSubject(website.id), query.from, query.to), query.name);
    const needle = query.search?.toLowerCase();
    if (needle) rows = rows.filter((r) => r.value.toLowerCase().includes(needle));
    const sort = query.sort ?? 'desc';
    sortRows(rows, (r) => r.value, 'asc');
    if ((query.sort_by ?? 'count') === 'count') sortRows(rows, (r) => r.count, sort);
    else sortRows(rows, (r) => r.value, sort);

    return c.json(flatPage(rows, query.page ?? 1, Number(query.per_page ?? 50), `${s.config.baseUrl}/api/v1/stats/${website.id}`, linkQuery(c.req.query())));
  });
  return routes;
}
