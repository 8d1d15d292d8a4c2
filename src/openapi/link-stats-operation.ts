import * as v from 'valibot';
import { LINK_METRICS } from '../links/link-metrics.ts';
import { links } from '../resources/links.ts';
import { int, str } from '../resources/shapes.ts';
import type { Components } from './components.ts';
import { linkSuccessSchema, ref } from './components.ts';
import { titleOf } from './link-operations.ts';
import type { OpSpec } from './operation.ts';

const day = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };

/** `GET /api/url/:id/stats`: one breakdown of a link's clicks, every row (ours). */
export function linkStatsOperation(c: Components): OpSpec {
  return {
    tag: titleOf(links).tag,
    dialect: 'link',
    operationId: 'getLinkStats',
    method: 'get',
    path: '/api/url/:id/stats',
    summary: "One breakdown of a short link's clicks",
    description:
      'Every `{value, count}` row of one name, where `GET /api/url/:id` gives the top 10 of a few. `clicks` and `unique_clicks`: one row per UTC day with any, oldest first, the value being the day. The others: labels, most counted first, ties by value. `country` values are English names (as `topCountries`), `region` and `city` look like `US:California` and `US:San Francisco` (with a City database, GEOIP_DATABASE), `source` is the referrer grouped by named source (`Google`, `X/Twitter`, …, else the host; `Direct / None`), `utm_*` are the tags of the short URL as it was opened (`/abc?utm_source=newsletter`).',
    query: [
      { name: 'name', required: true, schema: { type: 'string', enum: [...LINK_METRICS] }, example: 'source' },
      { name: 'from', description: 'First UTC day, YYYY-MM-DD (default: the first day with clicks).', schema: day, example: '2026-11-01' },
      { name: 'to', description: 'Last UTC day, YYYY-MM-DD, not before `from` (default: today).', schema: day, example: '2026-11-30' },
      { name: 'format', description: '`csv`: every row as a CSV file (columns `value,count`; a text cell starting a formula gets a leading `\'`), as `Accept: text/csv` asks too.', schema: { type: 'string', enum: ['json', 'csv'] } },
    ],
    responses: {
      '200': { description: 'The rows, or with `format=csv` a CSV file of them.', type: ['application/json', 'text/csv'], schema: c.schema('LinkStatRows', () => linkSuccessSchema({ data: v.array(v.strictObject({ value: str, count: int })) })) },
      '404': { description: links.messages.notFound, schema: ref('LinkError') },
    },
  };
}
