import type { ErrorStatus } from '../config.ts';
import { MESSAGES } from '../errors.ts';
import { answeredOkUnderErrorStatus200 } from '../http/error-body.ts';
import { RATE_LIMIT_HEADERS, headerRef, ref } from './components.ts';
import type { Schema } from './json-schema.ts';
import { isReferenceOperation } from './reference.ts';
import { ANSWERS_WITH_SECRETS } from '../idempotency/keys.ts';

/** Which error dialect and security an operation has: the link API, the analytics API, or none (public pages). */
export type Dialect = 'link' | 'analytics' | 'public';

/** HTTP methods the server uses. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';

/** A query or path parameter. */
export interface Param {
  name: string;
  description?: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
  /** Never refused: a value the server cannot use is read as the default (the link API's paging and order). */
  lenient?: boolean;
}

/** A request body: JSON (link API), form fields or JSON (analytics API), or form fields only (public pages). */
export interface Body {
  schema: Schema;
  /** Whether a body must be sent; by default when the (inline) schema requires a field. */
  required?: boolean;
  example?: unknown;
  types?: readonly string[];
  /** A content type whose schema and example differ from `schema` and `example` (an upload's multipart form). */
  byType?: Readonly<Record<string, { schema: Schema; example?: unknown }>>;
}

/** One documented response. */
export interface Reply {
  description: string;
  schema?: Schema;
  /** Content type(s); `application/json` when a schema is given. With several, the schema is the JSON one's. */
  type?: string | readonly string[];
  headers?: Record<string, unknown>;
}

/** What an operation is, before it becomes an OpenAPI operation object. */
export interface OpSpec {
  operationId: string;
  method: Method;
  /** Hono path (`/api/qr/:id`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  dialect: Dialect;
  admin?: boolean;
  query?: readonly Param[];
  pathParams?: Record<string, Partial<Param>>;
  body?: Body;
  responses: Record<string, Reply>;
  /** Error statuses beyond those derived from the dialect, in the dialect's shape. */
  errors?: readonly number[];
  /** Whether its path parameters name a record that may be missing (404); default true. */
  findsRecord?: boolean;
}

/** A derived operation: its OpenAPI path and operation object. */
export interface Operation {
  method: Method;
  path: string;
  object: Record<string, unknown>;
}

/** `/api/qr/:id` → `/api/qr/{id}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

const pathNames = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);

const LINK_ERRORS: Record<number, string> = {
  400: 'Invalid input: a field, a query parameter or the body. `message` names the problem.',
  401: MESSAGES.invalidKey,
  403: MESSAGES.forbidden,
  404: 'The record does not exist or belongs to another user.',
  410: 'Gone.',
  409: 'A request with the same Idempotency-Key is still in progress, or the request conflicts with a change made at the same time: retry after `Retry-After` seconds.',
  413: 'The request body is larger than BODY_LIMIT.',
  415: 'The body is not sent as `application/json`.',
  422: 'This Idempotency-Key was used with another request (method, path or body): use a new key for a new request.',
  429: `${MESSAGES.tooMany} (per user, all of its keys together, or per client IP after repeated failed authentications).`,
  503: `${MESSAGES.unavailable} The storage cannot be reached (PostgreSQL down or unreachable); retry after \`Retry-After\` seconds.`,
};

const ANALYTICS_ERRORS: Record<number, string> = {
  400: 'The body is not valid form data or JSON.',
  401: 'Unauthenticated.',
  404: 'Resource not found.',
  413: 'The request body is larger than BODY_LIMIT.',
  415: 'The body is neither form fields nor JSON.',
  422: 'The given data was invalid: every field with its messages.',
  429: 'Too Many Attempts.',
  503: `${MESSAGES.unavailable} The storage cannot be reached (PostgreSQL down or unreachable); retry after \`Retry-After\` seconds.`,
};

/** The error statuses an operation can answer, from what it takes. */
function errorStatuses(spec: OpSpec): number[] {
  const out = new Set(spec.errors ?? []);
  // BODY_LIMIT holds for every request, before any route or key.
  if (spec.body) out.add(413);
  if (spec.dialect === 'public') return [...out];
  const validated = spec.body !== undefined || (spec.query ?? []).some((p) => !p.lenient);
  // 403: a scoped key without the operation's scope (or outside its addresses); an admin route's non-admin.
  [401, 403, 429, 503].forEach((s) => out.add(s));
  if (pathNames(spec.path).length > 0 && spec.findsRecord !== false) out.add(404);
  if (validated) out.add(spec.dialect === 'link' ? 400 : 422);
  if (spec.body) [400, 415].forEach((s) => out.add(s));
  if (takesIdempotencyKey(spec)) [400, 409, 422].forEach((s) => out.add(s));
  return [...out];
}

/** The Idempotency-Key header every POST of the link API takes. */
export const IDEMPOTENCY_PARAM = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any text of 1 to 255 printable ASCII characters (a UUID): the first answer to it (status and body) is kept for 24 hours, per key and user, and a request with the same key, method, path and body gets it again, with `Idempotent-Replayed: true`, instead of running again. ' +
    'The same key with another request: 422; while the first request runs: 409 with Retry-After. Answers of 5xx are not kept.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  example: '0b7d6e52-4f0a-4c59-9a1e-7f4f1c2d3e4a',
};

/** Every authenticated POST of the link API honours Idempotency-Key (app.ts), but those answering a new API key. */
const takesIdempotencyKey = (spec: OpSpec) => spec.method === 'post' && spec.dialect === 'link' && !ANSWERS_WITH_SECRETS.has(spec.path);

/** What a 403 of an operation that needs `scope` says: the missing scope, the address, and for an admin route the non-admin. */
function forbiddenText(scope: string | undefined, admin: boolean): string {
  const lacks = scope ? `A scoped key without \`${scope}\` ("This API key lacks the scope ${scope}."), or one used from an address outside its allow-list.` : '';
  return admin ? `"${MESSAGES.forbidden}" (the key's user is not an admin). ${lacks}`.trim() : lacks || MESSAGES.forbidden;
}

function errorReply(dialect: Dialect, status: number, forbidden: string): Reply {
  const analytics = dialect === 'analytics';
  const description = status === 403 ? forbidden : ((analytics ? ANALYTICS_ERRORS : LINK_ERRORS)[status] ?? 'Error.');
  const schema = analytics ? ref(status === 422 ? 'AnalyticsValidationError' : 'AnalyticsError') : ref('LinkError');
  const headers: Record<string, unknown> = {};
  if (status === 401) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
  if (status === 409 || status === 429 || status === 503) headers['Retry-After'] = headerRef('Retry-After');
  return { description, schema, headers };
}

function responseObject(reply: Reply, limited: boolean, status: string): Record<string, unknown> {
  const headers = { ...(limited && status !== '401' ? RATE_LIMIT_HEADERS : {}), ...reply.headers };
  const types = [reply.type ?? (reply.schema ? 'application/json' : [])].flat();
  // The schema describes the JSON answer; another type beside it (a CSV download) has none.
  const schemaFor = (t: string) => (reply.schema && (types.length === 1 || t === 'application/json') ? { schema: reply.schema } : {});
  return {
    description: reply.description,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(types.length > 0 ? { content: Object.fromEntries(types.map((t) => [t, schemaFor(t)])) } : {}),
  };
}

function parameters(spec: OpSpec): Record<string, unknown>[] {
  const path = pathNames(spec.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: /id$/i.test(name) ? { type: 'integer', minimum: 1 } : { type: 'string' },
    ...spec.pathParams?.[name],
  }));
  const query = (spec.query ?? []).map(({ lenient: _lenient, ...p }) => ({ in: 'query', ...p, required: p.required ?? false }));
  return [...path, ...query, ...(takesIdempotencyKey(spec) ? [IDEMPOTENCY_PARAM] : [])];
}

const EXTENSION_NOTE = '**Extension:** not in the API reference; kept compatible with the products it reproduces.';

/** The 200 reply of a link-API operation under ERROR_STATUS=200: its success body, or the error body of an error the client fixes by changing its request. */
function withErrorBody(reply: Reply | undefined): Reply {
  const success = reply?.schema;
  return {
    description: `${reply?.description ?? 'Success.'} With ERROR_STATUS=200, the errors a client fixes by changing its request too: \`{error: 1, message}\`.`,
    schema: success ? { anyOf: [success, ref('LinkError')] } : ref('LinkError'),
    ...(reply?.headers ? { headers: reply.headers } : {}),
  };
}

/**
 * The OpenAPI operation of `spec`: parameters, body, success and derived error responses, security
 * with the `scope` a key needs for it (route-scopes.ts), extension and admin marks. With
 * `errorStatus` 200 the link API's errors are documented as the 200 they are.
 */
export function operation(spec: OpSpec, errorStatus: ErrorStatus = 'real', scope?: string): Operation {
  const extension = !isReferenceOperation(spec.method, spec.path);
  const limited = spec.dialect !== 'public';
  const replies: Record<string, Reply> = { ...spec.responses };
  const forbidden = forbiddenText(scope, spec.admin === true);
  const own403 = replies['403'];
  // An operation's own 403 (another user's short URL) is one more reason beside the key's.
  if (own403 && limited) replies['403'] = { ...own403, description: `${own403.description} ${forbidden}` };
  // Under ERROR_STATUS=200 only the errors a client fixes by changing its request become the 200; 429 and 503 stay.
  const okErrors = errorStatus === 200 && spec.dialect === 'link';
  if (okErrors) replies['200'] = withErrorBody(replies['200']);
  for (const status of errorStatuses(spec)) {
    if (okErrors && answeredOkUnderErrorStatus200(status)) continue;
    replies[String(status)] ??= errorReply(spec.dialect, status, forbidden);
  }
  const responses = Object.fromEntries(
    Object.entries(replies)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, reply]) => [status, responseObject(reply, limited, status)]),
  );
  const types = spec.body?.types ?? ['application/json'];
  const description = [extension ? EXTENSION_NOTE : '', spec.description ?? ''].filter(Boolean).join('\n\n');
  const params = parameters(spec);
  const object: Record<string, unknown> = {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    ...(description ? { description } : {}),
    // OpenAPI 3.1 lets a bearer scheme's requirement name roles: here the scope a key needs.
    security: spec.dialect === 'public' ? [] : [{ bearer: scope ? [scope] : [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(spec.body
      ? {
          requestBody: {
            // An empty body is an empty object to the server: the body is required only when a field is.
            required: spec.body.required ?? ((spec.body.schema.required as unknown[] | undefined) ?? []).length > 0,
            content: Object.fromEntries(
              types.map((t) => {
                const media = spec.body!.byType?.[t] ?? spec.body!;
                return [t, { schema: media.schema, ...(media.example ? { example: media.example } : {}) }];
              }),
            ),
          },
        }
      : {}),
    responses,
    ...(extension ? { 'x-extension': true } : {}),
    ...(spec.admin ? { 'x-admin': true } : {}),
  };
  return { method: spec.method, path: openApiPath(spec.path), object };
}
