import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { zipDownload } from '../../http/downloads.ts';
import type { Link } from '../../links/shape.ts';
import { subjectOf } from '../../links/stats.ts';
import { linkStatsExport } from '../../links/stats-export.ts';
import type { Services } from '../../resources/define.ts';
import { links } from '../../resources/links.ts';
import { findVisible } from '../crud.ts';

/** A `from`/`to` query value: absent, or a real UTC day as YYYY-MM-DD. */
function dayParam(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(raw) && new Date(`${raw}T00:00:00Z`).toISOString().startsWith(raw);
  if (!ok) throw new ApiError(400, `Invalid ${name}: it must be a date as YYYY-MM-DD.`);
  return raw;
}

/** `GET /api/url/:id/stats/export?from=&to=`: a link's statistics, every breakdown, as CSV files in a zip (ours). */
export function linkStatsExportRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/url/:id/stats/export', async (c) => {
    const link = await findVisible<Link>(s, links, c.req.param('id'), c.get('user').id);
    const from = dayParam('from', c.req.query('from'));
    const to = dayParam('to', c.req.query('to'));
    if (from !== undefined && to !== undefined && to < from) throw new ApiError(400, 'Invalid to: it must be the same day as from or later.');
    const days = await s.counters.days(subjectOf('link', link.id), from, to);
    return zipDownload(c, await linkStatsExport(days, s.clock.now()), `link-${link.id}-stats${from ? `-${from}` : ''}${to ? `-${to}` : ''}.zip`);
  });
  return routes;
}
