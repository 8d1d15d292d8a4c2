import * as v from 'valibot';
import { PAGE_METRICS, PANELS } from '../analytics/stats-panels.ts';
import { MAX_DAYS, PERIODS } from '../analytics/stats-range.ts';
import { REALTIME_REFRESH_MS } from '../analytics/realtime-script.ts';
import { headerRef } from './components.ts';
import type { Components } from './components.ts';
import { shapeSchema } from './json-schema.ts';
import type { OpSpec, Param, Reply } from './operation.ts';

const page = (description: string): Reply => ({ description, type: 'text/html' });
const moved: Reply = { description: 'To the stored spelling of the domain (the query kept).', headers: { Location: { description: 'Where to go.', schema: { type: 'string' } } } };
const tooOften: Reply = { ...page('This client IP has opened STATS_PAGE_RATE_LIMIT stats pages and downloads in this window.'), headers: { 'Retry-After': headerRef('Retry-After') } };
const str = { type: 'string' } as const;

/** The query parameters of the stats page (`GET /stats/{domain}`): its range and the state of its panels. */
export const STATS_PAGE_QUERY: readonly Param[] = [
  { name: 'period', description: `A preset of UTC days: ${PERIODS.map((p) => `\`${p}\``).join(', ')} (with \`from\` and \`to\`); the last 30 days by default.`, schema: { type: 'string', enum: [...PERIODS] } },
  { name: 'from', description: `First day of a custom range, YYYY-MM-DD (a range of at most ${MAX_DAYS} days).`, schema: str },
  { name: 'to', description: 'Last day of a custom range, YYYY-MM-DD.', schema: str },
  ...PANELS.map((p): Param => ({ name: p.param, description: `The tab of the ${p.name} panel (the first by default).`, schema: { type: 'string', enum: p.tabs.map((t) => t.metric) } })),
  { name: 'event', description: 'The events panel shows this custom event\'s properties.', schema: str },
  { name: 'property', description: 'With `event`: the events panel shows this property\'s values.', schema: str },
];

const range = (example: { from: string; to: string }): Param[] => [
  { name: 'from', required: true, description: 'First day, YYYY-MM-DD.', schema: str, example: example.from },
  { name: 'to', required: true, description: `Last day, YYYY-MM-DD (at most ${MAX_DAYS} days after \`from\`).`, schema: str, example: example.to },
];

const ACCESS = 'Behind the page\'s own access rules: anyone for a public website (privacy 0); else the sign-in cookie of the page, on a page load or download (a script of another page cannot use it).';

/** The stats page's downloads and realtime line, which need no key: the page's access rules apply. */
export function statsPageOperations(c: Components): OpSpec[] {
  const tag = 'Tracking';
  const common = { dialect: 'public', tag, method: 'get' } as const;
  const refused = page('Not public, and no sign-in cookie of the page (or not a page load).');
  const missing = page('No such website.');
  const dates = { from: '2026-11-01', to: '2026-11-21' };
  return [
    {
      ...common,
      operationId: 'getStatsPageCsv',
      path: '/stats/:domain/csv',
      summary: 'One panel of a statistics page as a CSV file',
      description: `Every row of one stats name the page shows, as \`GET /api/v1/stats/{id}?format=csv\` answers it (columns \`value,count\`, most counted first). ${ACCESS}`,
      query: [
        { name: 'name', required: true, description: 'A stats name of the page\'s panels.', schema: { type: 'string', enum: [...PAGE_METRICS] }, example: 'page' },
        ...range(dates),
        { name: 'event', description: 'The event, for `event_property` (required there).', schema: str },
        { name: 'property', description: 'With `event_property`: that property\'s values rather than the event\'s property names.', schema: str },
      ],
      responses: { '200': { description: 'The CSV, as an attachment.', type: 'text/csv' }, '301': moved, '400': page('A name the page does not show, or a bad range.'), '401': refused, '404': missing, '429': tooOften },
    },
    {
      ...common,
      operationId: 'getStatsPageExport',
      path: '/stats/:domain/export',
      summary: 'What a statistics page shows, as CSV files in a zip',
      description: `As \`GET /api/v1/stats/{id}/export\`, for the names the page shows: pageviews, visitors and their hours, and each panel's names (with \`event_property.csv\`). ${ACCESS}`,
      query: range(dates),
      responses: { '200': { description: 'The zip, as an attachment.', type: 'application/zip' }, '301': moved, '400': page('A bad range.'), '401': refused, '404': missing, '429': tooOften },
    },
    {
      ...common,
      operationId: 'getStatsPageRealtime',
      path: '/stats/:domain/realtime',
      summary: 'The realtime line of a statistics page',
      description: `The distinct visitors of the last 5 minutes, and the page's sentence for them; the page's script reads it every ${REALTIME_REFRESH_MS / 1000} s. ${ACCESS} The page's own script also sends the page's token in \`X-Stats-Token\`.`,
      responses: {
        '200': { description: 'The visitors.', schema: c.schema('StatsPageRealtime', () => shapeSchema(v.strictObject({ visitors: v.number(), text: v.string() }))) },
        '301': moved,
        '401': { description: 'Not public, and no sign-in cookie with the page\'s token.', schema: c.schema('StatsPageRefusal', () => shapeSchema(v.strictObject({ error: v.string() }))) },
        '404': missing,
      },
    },
  ];
}
