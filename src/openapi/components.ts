import * as v from 'valibot';
import { MESSAGES } from '../errors.ts';
import { shapeSchema } from './json-schema.ts';
import type { Schema } from './json-schema.ts';

/** A `$ref` to a schema of the document's components. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/**
 * The components of the document under construction: schemas are registered as operations are
 * derived, so each shape is written once and referenced by name.
 */
export class Components {
  readonly schemas: Record<string, Schema> = {};

  /** Registers `schema` under `name` (once) and returns a reference to it. */
  schema(name: string, schema: Schema | (() => Schema)): Schema {
    this.schemas[name] ??= typeof schema === 'function' ? schema() : schema;
    return ref(name);
  }

  /** A request body schema registered under `name`, and whether it requires any field. */
  body(name: string, schema: () => Schema): { schema: Schema; required: boolean } {
    const ref = this.schema(name, schema);
    const required = (this.schemas[name]?.required as unknown[] | undefined) ?? [];
    return { schema: ref, required: required.length > 0 };
  }

  /** The `components` object of the document. */
  toJSON(): Record<string, unknown> {
    return { schemas: this.schemas, securitySchemes: SECURITY_SCHEMES, headers: HEADERS };
  }
}

const int = v.pipe(v.number(), v.integer());

/** Schemas every document has: the two APIs' error bodies and list envelopes. */
export function baseSchemas(c: Components): void {
  c.schema('LinkError', shapeSchema(v.strictObject({ error: v.literal(1), message: v.string() })));
  c.schema('Message', shapeSchema(v.strictObject({ error: v.literal(0), message: v.string() })));
  c.schema('AnalyticsError', shapeSchema(v.strictObject({ message: v.string(), status: int })));
  c.schema('AnalyticsValidationError', {
    ...shapeSchema(v.strictObject({ message: v.record(v.string(), v.array(v.string())), status: v.literal(422) })),
    description: 'Every invalid field with its messages, as Laravel reports them.',
  });
  c.schema('LaravelLinks', shapeSchema(v.strictObject({ first: v.string(), last: v.string(), prev: v.nullable(v.string()), next: v.nullable(v.string()) })));
  c.schema(
    'LaravelMeta',
    shapeSchema(
      v.strictObject({ current_page: int, from: v.nullable(int), last_page: int, path: v.string(), per_page: int, to: v.nullable(int), total: int }),
    ),
  );
}

// The page fields of a link-management list, and the page's entries under `listKey`.
function pageFields(listKey: string, entry: Schema): Record<string, Schema> {
  const page = { type: 'integer', minimum: 0 };
  return {
    result: { ...page, description: 'Number of matching records.' },
    perpage: page,
    currentpage: page,
    nextpage: { anyOf: [page, { type: 'null' }], description: 'null on the last page.' },
    maxpage: page,
    [listKey]: { type: 'array', items: entry },
  };
}

const PAGE_REQUIRED = ['result', 'perpage', 'currentpage', 'nextpage', 'maxpage'];

/** The link-management API's list envelope around `entry` items under `listKey`. */
export function linkListSchema(listKey: string, entry: Schema): Schema {
  return {
    type: 'object',
    properties: {
      error: { const: '0', description: 'The string "0" in list responses (the reference).' },
      data: { type: 'object', properties: pageFields(listKey, entry), required: [...PAGE_REQUIRED, listKey], additionalProperties: false },
    },
    required: ['error', 'data'],
    additionalProperties: false,
  };
}

/** A list whose page fields and entries sit beside `error` (the number 0), without `data`: the files list, as the real product answers it. */
export function flatListSchema(listKey: string, entry: Schema): Schema {
  return {
    type: 'object',
    properties: { error: { const: 0 }, ...pageFields(listKey, entry) },
    required: ['error', ...PAGE_REQUIRED, listKey],
    additionalProperties: false,
  };
}

/** A list whose `data` is the plain array of one page's entries (the admin users list, as the real product answers it). */
export function plainListSchema(entry: Schema): Schema {
  return { type: 'object', properties: { error: { const: '0' }, data: { type: 'array', items: entry } }, required: ['error', 'data'], additionalProperties: false };
}

/** The analytics API's list envelope (Laravel's paginator) around `item` rows. */
export function laravelListSchema(item: Schema): Schema {
  return {
    type: 'object',
    properties: { data: { type: 'array', items: item }, links: ref('LaravelLinks'), meta: ref('LaravelMeta'), status: { const: 200 } },
    required: ['data', 'links', 'meta', 'status'],
    additionalProperties: false,
  };
}

/** Laravel's flat paginator (`toArray()`) around `item` rows: the stats API's answer, as the real product gives it. */
export function flatPageSchema(item: Schema): Schema {
  const int = { type: 'integer' };
  const url = { type: 'string' };
  const maybe = (s: Schema) => ({ anyOf: [s, { type: 'null' }] });
  const link = { type: 'object', properties: { url: maybe(url), label: { type: 'string' }, active: { type: 'boolean' } }, required: ['url', 'label', 'active'], additionalProperties: false };
  const properties = {
    current_page: int,
    data: { type: 'array', items: item },
    first_page_url: url,
    from: maybe(int),
    last_page: int,
    last_page_url: url,
    links: { type: 'array', items: link, description: 'Previous, the page numbers (`...` for a gap, url null), Next: Laravel\'s page window.' },
    next_page_url: maybe(url),
    path: url,
    per_page: int,
    prev_page_url: maybe(url),
    to: maybe(int),
    total: int,
    status: { const: 200 },
  };
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** `{error: 0, ...entries}`: a successful link-management response. */
export function linkSuccessSchema(entries: v.ObjectEntries): Schema {
  return shapeSchema(v.strictObject({ error: v.literal(0), ...entries }));
}

const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: `An API key: \`Authorization: Bearer <API_KEY>\` (or \`Token <API_KEY>\`, as the vendor's PHP wrapper sends it), for both APIs. A missing, unknown or expired key answers 401 ("${MESSAGES.invalidKey}"). The account key (made with the user, replaced by rotate-key) holds every scope; a scoped key (\`POST /api/keys\`) holds only its own, and each operation names the one scope it needs (\`x:*\` covers \`x:read\` and \`x:write\`, \`*\` everything): without it the answer is 403 ("This API key lacks the scope <scope>."). A scoped key used from an address outside its allow-list answers 403 too.`,
  },
};

const intHeader = (description: string) => ({ description, schema: { type: 'integer' } });

const HEADERS = {
  'X-RateLimit-Limit': intHeader('Requests allowed per window and user, all of its keys together (RATE_LIMIT, 30 by default; ANALYTICS_RATE_LIMIT for /api/v1). Absent when the limit is off.'),
  'X-RateLimit-Remaining': intHeader('Requests left in the current window.'),
  'X-RateLimit-Reset': intHeader('When the window ends, as a Unix timestamp (seconds).'),
  'Retry-After': intHeader('Seconds to wait before retrying.'),
  'WWW-Authenticate': { description: 'The bearer challenge.', schema: { type: 'string' } },
};

/** The rate-limit headers every response past authentication carries. */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** A reference to a header of the components. */
export const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
