import * as v from 'valibot';
import { analyticsAccountShape } from '../analytics/account.ts';
import { booleanField } from '../analytics/form-fields.ts';
import { listQuery } from '../analytics/list-page.ts';
import { exportQuery, statsQuery } from '../analytics/stats-query.ts';
import { MAX_PROPERTY_DIMENSIONS } from '../store/property-dimensions.ts';
import type { Resource } from '../resources/define.ts';
import type { Components } from './components.ts';
import { flatPageSchema, laravelListSchema } from './components.ts';
import { bodySchema, inputSchema, shapeSchema } from './json-schema.ts';
import type { Schema } from './json-schema.ts';
import { entryRef, pascal, shapesOf, titleOf, updateExample } from './link-operations.ts';
import type { OpSpec, Param } from './operation.ts';
import { realtimeShape, statRowShape } from './shapes.ts';
import { REALTIME_MINUTES, REALTIME_PAGES } from '../stats/realtime-buffer.ts';

/** Form fields (as the reference sends them) or JSON. */
export const FORM_OR_JSON = ['application/x-www-form-urlencoded', 'application/json'] as const;

const QUERY_NOTES: Record<string, string> = {
  search: 'Only rows whose `search_by` field contains this text.',
  search_by: 'The field `search` looks in; any other value is the default.',
  sort_by: 'The field to sort by; any other value is the default.',
  sort: 'Sort order: `desc` (default) or `asc`; any other value is the default.',
  per_page: 'Rows per page: 10, 25, 50 (default) or 100; any other value is the default, as the real product reads it.',
  page: 'Page requested; a page past the end is empty.',
  favorite: 'Only favourite (true) or other (false) websites.',
  name: 'The metric.',
  from: 'First day, YYYY-MM-DD (UTC).',
  to: 'Last day, YYYY-MM-DD (UTC), not before `from`.',
  event: 'With `name=event_property`: the custom event (required).',
  property: 'With `name=event_property`: the property whose values to count; without it, the event\'s property names and how often each came.',
  format: '`csv` answers every row (sorted, searched, not paged) as a CSV file; `json` (default) the page. Without it, an Accept header preferring `text/csv` to `application/json` gets the CSV.',
};

/** The query parameters of a Valibot query object, one per field, converted like request bodies. */
export function queryParams(schema: v.GenericSchema, examples: Record<string, unknown> = {}): Param[] {
  const json = inputSchema(schema);
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries((json.properties ?? {}) as Record<string, Schema>).map(([name, prop]) => ({
    name,
    ...(QUERY_NOTES[name] ? { description: QUERY_NOTES[name] } : {}),
    required: required.has(name),
    schema: prop,
    ...(name in examples ? { example: examples[name] } : {}),
  }));
}

// The list filters of src/routes/analytics/websites.ts (the query of stats.ts is its own: stats-query.ts).
const LIST_FILTERS: Record<string, v.ObjectEntries> = { website: { favorite: v.optional(booleanField('favorite')) } };

const single = (entry: Schema, status: 200 | 201): Schema => ({
  type: 'object',
  properties: { data: entry, status: { const: status } },
  required: ['data', 'status'],
  additionalProperties: false,
});

/** The operations of an analytics row in the API's Laravel dialect: list, show, create (201), update (PUT and PATCH), delete. */
export function analyticsRowOperations(row: Resource, c: Components): OpSpec[] {
  shapesOf(row);
  const { tag, noun } = titleOf(row);
  const name = pascal(row.name);
  const entry = entryRef(row, c);
  const base = { tag, dialect: 'analytics' as const };
  const { list, get, create, update, remove } = row.paths;
  const ops: OpSpec[] = [];
  const one = c.schema(`${name}Single`, () => single(entry, 200));
  if (list) {
    const query = listQuery((row.searchable ?? ['id']) as [string], (row.sortable ?? ['id']) as [string], LIST_FILTERS[row.name] ?? {});
    const schema = c.schema(`${name}List`, () => laravelListSchema(entry));
    ops.push({ ...base, operationId: `list${name}s`, method: 'get', path: list, summary: `List ${noun}s`, query: queryParams(query), responses: { '200': { description: 'A page of the list.', schema } } });
  }
  if (get) ops.push({ ...base, operationId: `get${name}`, method: 'get', path: get, summary: `Show a ${noun}`, responses: { '200': { description: `The ${noun}.`, schema: one } } });
  if (create && row.create) {
    const body = { ...c.body(`${name}Create`, () => bodySchema(row, 'create')), example: row.example(1), types: FORM_OR_JSON };
    const schema = c.schema(`${name}Created`, () => single(entry, 201));
    ops.push({ ...base, operationId: `create${name}`, method: 'post', path: create, summary: `Create a ${noun}`, body, responses: { '201': { description: `The new ${noun}.`, schema } } });
  }
  if (update && row.update) {
    const body = { ...c.body(`${name}Update`, () => bodySchema(row, 'update')), example: updateExample(row, 2), types: FORM_OR_JSON };
    for (const method of ['put', 'patch'] as const) {
      const operationId = `${method === 'put' ? 'update' : 'patch'}${name}`;
      ops.push({ ...base, operationId, method, path: update, summary: `Update a ${noun} (${method.toUpperCase()})`, description: 'Fields left out keep their values.', body, responses: { '200': { description: `The updated ${noun}.`, schema: one } } });
    }
  }
  if (remove) {
    const schema = c.schema(`${name}Deleted`, () =>
      shapeSchema(v.strictObject({ id: v.pipe(v.number(), v.integer()), object: v.literal(row.name), deleted: v.literal(true), status: v.literal(200) })),
    );
    ops.push({ ...base, operationId: `delete${name}`, method: 'delete', path: remove, summary: `Delete a ${noun}`, description: 'Its statistics go with it.', responses: { '200': { description: 'Deleted.', schema } } });
  }
  return ops;
}

/** `GET /api/v1/account`: the key's account in the analytics product's shape. */
export function analyticsAccountOperation(c: Components): OpSpec {
  return {
    operationId: 'getAnalyticsAccount',
    tag: 'Account',
    dialect: 'analytics',
    method: 'get',
    path: '/api/v1/account',
    summary: 'Get the account of the key (analytics API)',
    description: '`name` is the username; `locale` and `timezone` are fixed (`en`, `UTC`: statistics are counted in UTC days). The plan is the user\'s, or the default plan (id 1); this server enforces no plan limits, so every feature is on and every limit unlimited (-1).',
    responses: { '200': { description: 'The account.', schema: c.schema('AnalyticsAccount', () => single(shapeSchema(analyticsAccountShape), 200)) } },
  };
}

const CSV_NOTE =
  'CSV files are RFC 4180 (UTF-8, CRLF line ends, a header row); a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading `\'` so that spreadsheets do not run it as a formula.';

/** `GET /api/v1/stats/{id}`: one metric of a website over a date range (JSON, or CSV); `GET /api/v1/stats/{id}/export`: all of them in a zip. */
export function statsOperations(c: Components): OpSpec[] {
  const base = { tag: 'Statistics', dialect: 'analytics' as const };
  return [
    {
      ...base,
      operationId: 'getWebsiteStats',
      method: 'get',
      path: '/api/v1/stats/:id',
      summary: 'One metric of a website over a date range',
      description:
        '`{value, count}` rows in Laravel\'s flat paginator (as the real product answers), sorted by `sort_by` (`count` by default, or `value`) in `sort` order (`desc` by default), ties by value. Country values look like `US:United States`, `region` and `city` values `US:California` and `US:San Francisco` (with a City database, GEOIP_DATABASE); `source` is the referrer grouped by named source (`Google`, `X/Twitter`, …, else the host; `Direct / None` without a referrer or `utm_source`); `utm_source`, `utm_medium`, `utm_campaign`, `utm_term` and `utm_content` are the tags of the landing page (`campaign` is `utm_campaign` too, as the real product has it). For `pageviews` and `visitors` the value is the day, for the `_hour` metrics the hour. Page paths are counted without `utm_*` parameters and those of `exclude_params`.\n\n' +
        `\`event_property\` (ours) counts the properties of custom events (\`properties\` of \`POST /api/event\`): with \`event\` and \`property\` the property's values, with \`event\` alone the event's property names. A day keeps at most ${MAX_PROPERTY_DIMENSIONS} (event, property) pairs of a website apart, later ones count under event \`(other)\`, property \`(other)\`; each pair keeps 1,000 values a day, later ones count as \`(other)\`, as the labels of every metric do.\n\n` +
        `With \`format=csv\` (ours) the answer is a CSV file of every row, columns \`value,count\`. ${CSV_NOTE}`,
      query: queryParams(statsQuery, { name: 'pageviews', from: '2026-11-01', to: '2026-11-30' }),
      responses: {
        '200': { description: 'A page of rows, or with `format=csv` a CSV file of every row.', type: ['application/json', 'text/csv'], schema: c.schema('StatRowPage', () => flatPageSchema(c.schema('StatRow', () => shapeSchema(statRowShape)))) },
      },
    },
    {
      ...base,
      operationId: 'getWebsiteRealtime',
      method: 'get',
      path: '/api/v1/stats/:id/realtime',
      summary: 'Visitors and pageviews of a website in the last minutes',
      description:
        `The pageviews of the current minute and the ${REALTIME_MINUTES} before it (UTC minutes of the server's clock: every pageview of the last ${REALTIME_MINUTES} minutes is in), whichever server process counted them: \`visitors\` are the distinct visitors among them, \`pages\` the pages viewed, most viewed first (at most ${REALTIME_PAGES}). Custom events are not pageviews. A pageview is in within a second of its event, in every process sharing the database. No IP address is kept: a visitor is a salted hash, forgotten with the minutes.`,
      responses: { '200': { description: 'The realtime view.', schema: c.schema('WebsiteRealtime', () => single(shapeSchema(realtimeShape), 200)) } },
    },
    {
      ...base,
      operationId: 'exportWebsiteStats',
      method: 'get',
      path: '/api/v1/stats/:id/export',
      summary: 'Every metric of a website over a date range, as CSV files in a zip',
      description:
        `A zip holding \`<name>.csv\` (columns \`value,count\`) for every name of \`GET /api/v1/stats/{id}\` but \`event_property\`, and \`event_property.csv\` (columns \`event,property,value,count\`). Days and hours are listed in time order, other values most counted first. A name with nothing counted has its header only. ${CSV_NOTE}`,
      query: queryParams(exportQuery, { from: '2026-11-01', to: '2026-11-30' }),
      responses: { '200': { description: 'The zip, as an attachment.', type: 'application/zip' } },
    },
  ];
}
