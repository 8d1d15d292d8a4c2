import { links } from '../resources/links.ts';
import { titleOf } from './link-operations.ts';
import type { OpSpec } from './operation.ts';

const day = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };

/** `GET /api/url/:id/stats/export`: a link's statistics as CSV files in a zip (ours). */
export function linkExportOperation(): OpSpec {
  return {
    tag: titleOf(links).tag,
    dialect: 'link',
    operationId: 'exportLinkStats',
    method: 'get',
    path: '/api/url/:id/stats/export',
    summary: "A short link's statistics as CSV files in a zip",
    description:
      'A zip of CSV files (RFC 4180, UTF-8, columns `value,count`; a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading `\'`): `clicks.csv` and `unique_clicks.csv` (one row per UTC day with clicks, in order), and one file per breakdown (`country`, `referrer`, `browser`, `os`, `device`, `language`, `social`, and any other the link was counted by), most counted first. Over every day, or the UTC days from `from` to `to`.',
    query: [
      { name: 'from', description: 'First UTC day, YYYY-MM-DD (default: the first day with clicks).', schema: day, example: '2026-11-01' },
      { name: 'to', description: 'Last UTC day, YYYY-MM-DD, not before `from` (default: the last).', schema: day, example: '2026-11-30' },
    ],
    responses: { '200': { description: 'The zip, as an attachment.', type: 'application/zip' } },
  };
}
