import { csvDownload, wantsCsv } from '../../http/downloads.ts';
import { statRowsCsv } from '../../export/csv.ts';
import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { LINK_METRICS, linkMetricRows } from '../../links/link-metrics.ts';
import type { LinkMetric } from '../../links/link-metrics.ts';
import type { Link } from '../../links/shape.ts';
import { subjectOf } from '../../links/stats.ts';
import type { Services } from '../../resources/define.ts';
import { links } from '../../resources/links.ts';
import { findVisible } from '../crud.ts';

/** A `from`/`to` query value: absent, or a real day as YYYY-MM-DD (UTC). */
function dayParam(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const day = raw.trim();
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(day) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day);
  if (!ok) throw new ApiError(400, `Invalid ${name}: it must be a date as YYYY-MM-DD.`);
  return day;
}

/**
 * `GET /api/url/:id/stats?name=…&from=…&to=…`: one breakdown of a link's clicks as `{value, count}`
 * rows (ours: the real product answers only the top 10 of a few in `GET /api/url/:id`), over all
 * days or the UTC days from `from` to `to`.
 */
export function linkStatsRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/url/:id/stats', async (c) => {
    const link = await findVisible<Link>(s, links, c.req.param('id'), c.get('user').id);
    const name = c.req.query('name');
    if (name === undefined || name.trim() === '') throw new ApiError(400, `Missing required parameter: name (one of ${LINK_METRICS.join(', ')}).`);
    if (!(LINK_METRICS as readonly string[]).includes(name)) throw new ApiError(400, `Invalid name: it must be one of ${LINK_METRICS.join(', ')}.`);
    const from = dayParam('from', c.req.query('from'));
    const to = dayParam('to', c.req.query('to'));
    if (from !== undefined && to !== undefined && to < from) throw new ApiError(400, 'Invalid to: it must be the same day as from or later.');
    const days = await s.counters.days(subjectOf('link', link.id), from, to);
    const rows = linkMetricRows(days, name as LinkMetric);
    const format = c.req.query('format');
    if (format !== undefined && format !== 'json' && format !== 'csv') throw new ApiError(400, 'Invalid format: it must be json or csv.');
    if (wantsCsv(c, format)) return csvDownload(c, statRowsCsv(rows), `link-${link.id}-${name}.csv`);
    return c.json({ error: 0, data: rows });
  });
  return routes;
}
