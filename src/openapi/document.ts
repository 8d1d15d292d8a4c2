import pkg from '../../package.json' with { type: 'json' };
import { RouteScopes } from '../auth/route-scopes.ts';
import type { Services } from '../resources/define.ts';
import { accountOperations } from './account-operations.ts';
import { compatOperations } from './compat-operations.ts';
import { analyticsAccountOperation, analyticsRowOperations, statsOperations } from './analytics-operations.ts';
import { Components, baseSchemas } from './components.ts';
import { fileOperations } from './file-operations.ts';
import { linkExportOperation } from './link-export-operation.ts';
import { bulkOperations } from './bulk-operations.ts';
import { importOperations, IMPORTS_TAG } from './import-operations.ts';
import { linkRowOperations, titleOf } from './link-operations.ts';
import { linkStatsOperation } from './link-stats-operation.ts';
import { operation } from './operation.ts';
import type { OpSpec } from './operation.ts';
import { publicOperations, trackingOperations } from './public-operations.ts';
import { dashboardOperations } from './dashboard-operations.ts';
import { resourceScreenOperations } from './dashboard-resource-operations.ts';
import { qrBioFileScreenOperations } from './dashboard-qrbio-operations.ts';
import { ownershipOperations } from './ownership-operations.ts';
import { statsPageOperations } from './stats-page-operations.ts';
import { webhookOperations } from './webhook-operations.ts';

/** The server's name, as its documents and its API index give it. */
export const SERVER_NAME = 'Short links and website analytics';

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>>; components: Record<string, unknown> };

const DESCRIPTION = `Two APIs on one server, with bearer keys: each user's account key, which can do everything the user can, and scoped keys the user makes (\`POST /api/keys\`), each limited to some scopes, an expiry and addresses:

- **Link management** under \`/api\` (the "v3" API): JSON bodies; every response has \`error\` (0, or the string "0" in lists) and errors are \`{error: 1, message}\` with a meaningful HTTP status.
- **Website analytics** under \`/api/v1\`: form fields (or JSON) for writes; Laravel-shaped answers \`{data, status}\` and errors \`{message, status}\` (422: \`{message: {field: [texts]}, status}\`).

With \`ERROR_STATUS=200\` (flag \`--error-status 200\`) the link-management API answers the errors a client fixes by changing its request (400, 401, 403, 404, 405, 413, 415) with HTTP 200 and \`{error: 1, message}\`, as the real product does, for clients that stop on any other status; a rate limit (429), a conflicting change made at the same time (409) and the server's own errors (500, 503) keep their status, with \`Retry-After\` where there is one, so that clients retry them. The analytics API keeps real statuses. This document describes the server's current setting.

Every authenticated response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; a 429 also \`Retry-After\`.
Operations marked \`x-extension\` are this server's own additions to the APIs of the two products it follows.`;

const TAG_NOTES: Record<string, string> = {
  Account: 'The account of the key, key rotation, and sign-up.',
  'API keys': 'Scoped keys beside the account key: each holds some scopes (below), may expire and may be limited to addresses; shown once when made, revoked at once.',
  'Audit log': 'Every write request of a key (refused ones too): when, which key, what, the outcome, from where. Kept AUDIT_RETENTION_DAYS days; the admin reads every user\'s.',
  Statistics: 'Website statistics of the analytics API.',
  Plans: 'The plans users can be on (no plan limits are enforced).',
  Tracking: 'What tracked websites and their visitors use: the script, the event endpoint, the statistics page. No key.',
  [IMPORTS_TAG]: 'Links from another shortener\'s export (Bitly, YOURLS, Shlink, Kutt, Rebrandly) or a CSV of your own, created in the background.',
  'Public pages': 'Short links, QR images and campaign pages as visitors see them, and the server\'s own pages. No key.',
  Dashboard: 'The web pages under /app (DASHBOARD on) where people sign in and manage their links: HTML, a session cookie, a form token on every post. No key (an API key can open a session).',
  Events: 'The live stream of what happens to your records: the events webhooks get, as Server-Sent Events.',
};

/** The operations of the whole server: the rows of the table, then the routes outside the generic ones. */
export function operationSpecs(s: Pick<Services, 'resources' | 'config'>, c: Components): OpSpec[] {
  const specs: OpSpec[] = [];
  for (const row of s.resources) {
    if (Object.keys(row.paths).length === 0) continue;
    specs.push(...(row.api === 'analytics' ? analyticsRowOperations(row, c) : linkRowOperations(row, c)));
  }
  return [...specs, ...bulkOperations(c), ...fileOperations(c), ...importOperations(c), ...accountOperations(c), ...compatOperations(c), linkStatsOperation(c), linkExportOperation(), ...ownershipOperations(c), ...webhookOperations(c), analyticsAccountOperation(c), ...statsOperations(c), ...trackingOperations(c), ...statsPageOperations(c), ...publicOperations(c, s.config), ...dashboardOperations(s.config), ...resourceScreenOperations(s.config), ...qrBioFileScreenOperations(s.config)];
}

function tagObjects(s: Pick<Services, 'resources'>, used: string[]): Record<string, unknown>[] {
  const rows = new Map(s.resources.map((r) => [titleOf(r).tag, r]));
  return used.map((name) => {
    const row = rows.get(name);
    if (!row) return { name, description: TAG_NOTES[name] ?? '' };
    const api = row.api === 'analytics' ? 'Analytics API (`/api/v1`).' : row.api === 'admin' ? 'Link-management API, admin keys only.' : 'Link-management API.';
    const note = row.extension ? ' **Extension:** this resource is wholly or partly ours, beyond the reference.' : '';
    const more = TAG_NOTES[name] ? ` ${TAG_NOTES[name]}` : '';
    return { name, description: `${api}${more}${note}`, ...(row.extension ? { 'x-extension': true } : {}) };
  });
}

/** The OpenAPI 3.1 document of the server, derived from the resource table and the route definitions. */
export function openApiDocument(s: Pick<Services, 'resources' | 'config'>): OpenApiDocument {
  const c = new Components();
  baseSchemas(c);
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  const scopes = new RouteScopes(s.resources);
  for (const spec of operationSpecs(s, c)) {
    const op = operation(spec, s.config.errorStatus, spec.dialect === 'public' ? undefined : scopes.of(spec.method, spec.path)?.scope);
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`openapi: ${op.method.toUpperCase()} ${op.path} is described twice`);
    item[op.method] = op.object;
    if (!tags.includes(spec.tag)) tags.push(spec.tag);
  }
  return {
    openapi: '3.1.0',
    info: { title: SERVER_NAME, version: pkg.version, description: DESCRIPTION },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: s.config.baseUrl }],
    tags: tagObjects(s, tags),
    paths,
    components: c.toJSON(),
  };
}
