import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { Context, Next } from 'hono';
import { KeyIndex, scopedKeysIn } from './auth/key-index.ts';
import { DisabledUsers } from './auth/disabled-users.ts';
import { KeyUses } from './auth/key-uses.ts';
import { RouteScopes } from './auth/route-scopes.ts';
import { AuditLog } from './audit/audit-log.ts';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { ApiError } from './errors.ts';
import type { AppEnv } from './http/app-env.ts';
import { authenticator, guarded } from './http/auth.ts';
import { BODY_METHODS, requestBodyLimit } from './http/body-limit.ts';
import { idempotencyKeys } from './http/idempotency.ts';
import { withWorkMarks } from './store/work-marks.ts';
import { ANSWERS_WITH_SECRETS } from './idempotency/keys.ts';
import { crudRoutes } from './routes/crud.ts';
import { isAnalyticsPath, isApiPath, methodNotAllowed, renderError, toApiError } from './http/error-body.ts';
import { renderErrorPage, wantsPage } from './http/error-page.ts';
import { MethodTable } from './http/method-table.ts';
import { permitted } from './http/permit.ts';
import { PasswordAttempts } from './http/password-attempts.ts';
import { memoryLimiters } from './http/rate-limit.ts';
import type { MakeLimiter } from './http/rate-limit.ts';
import { readyRoute, storeReadiness } from './http/ready-route.ts';
import type { Readiness } from './http/readiness.ts';
import type { Logger } from './log.ts';
import { OwnershipProofs } from './ownership/proofs.ts';
import { silentLogger } from './log.ts';
import type { RandomSource } from './random.ts';
import { cryptoRandom } from './random.ts';
import type { Resource, Services } from './resources/define.ts';
import { RESOURCES } from './resources/table.ts';
import { accountRoutes } from './routes/link-api/account.ts';
import { docsRoutes } from './routes/docs.ts';
import { campaignRoutes } from './routes/link-api/campaigns.ts';
import { channelRoutes } from './routes/link-api/channels.ts';
import { linkRoutes } from './routes/link-api/links.ts';
import { linkStatsRoutes } from './routes/link-api/link-stats.ts';
import { linkStatsExportRoutes } from './routes/link-api/link-stats-export.ts';
import { bulkRoutes, isBulkPath } from './routes/link-api/bulk.ts';
import { fileRoutes, UPLOAD_PATH } from './routes/link-api/files.ts';
import { IMPORT_PATH, importRoutes, tooLarge as importTooLarge } from './routes/link-api/imports.ts';
import { ImportRunner } from './imports/runner.ts';
import { MULTIPART_ALLOWANCE, tooLarge } from './files/upload-body.ts';
import { analyticsRoutes } from './routes/analytics/websites.ts';
import { DailyCounters } from './stats/daily-counters.ts';
import { registerRoutes } from './routes/link-api/register.ts';
import { loginLinkRoutes } from './routes/link-api/login-links.ts';
import { userDisableRoutes } from './routes/link-api/user-disable.ts';
import { planRoutes } from './routes/link-api/plans.ts';
import { domainVerificationRoutes } from './routes/link-api/domain-verification.ts';
import { wrapperRoutes } from './routes/link-api/wrapper-calls.ts';
import { loginPageRoutes } from './routes/pages/login-pages.ts';
import { campaignPageRoutes } from './routes/pages/campaign-pages.ts';
import { qrImageRoutes } from './routes/pages/qr-images.ts';
import { sharedRenderer } from './qr/renderer.ts';
import type { QrRenderer } from './qr/renderer.ts';
import { redirectRoutes } from './routes/pages/redirects.ts';
import { faviconRoutes } from './routes/pages/favicon.ts';
import { bioPageRoutes } from './routes/pages/bio-pages.ts';
import { dashboardAreas } from './dashboard/routes.ts';
import { DASHBOARD_UPLOAD_PATH } from './dashboard/files/upload-form.tsx';
import { withStoreDeadline } from './store/deadline.ts';
import { withEvents } from './events/emitting-store.ts';
import { EventStreams } from './events/event-streams.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { webhookRoutes } from './routes/link-api/webhooks.ts';
import { eventStreamRoutes } from './routes/link-api/event-stream.ts';
import { countryGeolocator } from './geo/geolocator.ts';
import type { Geolocator } from './geo/geolocator.ts';
import type { Store } from './store/store.ts';

/** The parts an app is built from; everything but store and config has a default. */
export interface AppParts {
  store: Store;
  config: Config;
  clock?: Clock;
  random?: RandomSource;
  log?: Logger;
  resources?: readonly Resource[];
  /** The statistics counters (test mode keeps one across app rebuilds); default: new ones on the store. */
  counters?: DailyCounters;
  /** Signs the pages' cookies (cookieSecret: the same in every process sharing the store); default: random, this app's own. */
  secret?: Uint8Array;
  /** Where rate limits count (see startRateLimits); default: this process's memory. */
  limits?: MakeLimiter;
  /** The audit log's buffer (the server's prunes on a schedule; test mode keeps one across rebuilds); default: a new one on the store, not pruning. */
  audit?: AuditLog;
  /** The scoped keys' last uses (test mode keeps one across rebuilds); default: new ones on the store. */
  keyUses?: KeyUses;
  /** The threads that draw QR images; default: this process's pool for the settings (sharedRenderer). */
  renderer?: QrRenderer;
  /** What /ready asks (the store, and Redis when the limits count there); default: the store. */
  readiness?: Readiness;
  /** Ownership proofs (tests inject their resolver and fetch); default: the system's DNS and the checked HTTPS fetch, tokens from the store's secret. */
  proofs?: OwnershipProofs;
  /** The webhook deliveries of this process (the server starts and stops them); default: one that runs only when kicked or drained. */
  webhooks?: WebhookDispatcher;
  /** The live event streams (the server ends them before closing); default: new ones on the store. */
  streams?: EventStreams;
  /** Where visitors are (startServer's reads GEOIP_DATABASE and watches it); default: the bundled countries, or GEOIP off's header only. */
  geo?: Geolocator;
  /** Look for due import jobs every this many ms (a server: jobs a process left when it died); default: only when one is queued here. */
  importPollMs?: number;
}

const UPLOAD_PREFIX = UPLOAD_PATH.slice(0, UPLOAD_PATH.indexOf(':'));

/** Paths under /api that need no key. */
export const PUBLIC_API: ReadonlySet<string> = new Set(['/api', '/api/', '/api/register', '/api/event']);

/** Builds the whole HTTP app (both APIs) from injected parts; no globals, no environment. */
export function createApp(parts: AppParts): Hono<AppEnv> {
  const clock = parts.clock ?? systemClock;
  const random = parts.random ?? cryptoRandom;
  const log = parts.log ?? silentLogger;
  // One counter buffer per app, shared by website and link statistics: one batched write per flush.
  const counters = parts.counters ?? new DailyCounters(parts.store, { clock, random, log });
  const secret = parts.secret ?? randomBytes(32);
  const limits = parts.limits ?? memoryLimiters(clock);
  const audit = parts.audit ?? new AuditLog(parts.store, { clock, log, retentionDays: parts.config.auditRetentionDays });
  const keyUses = parts.keyUses ?? new KeyUses(parts.store, clock, log);
  const renderer = parts.renderer ?? sharedRenderer(parts.config);
  const proofs = parts.proofs ?? new OwnershipProofs(parts.store);
  const resources = parts.resources ?? RESOURCES;
  // Every write through the app appends the events of what it changed, in its own transaction, and
  // marks the Idempotency-Key its request holds as taken effect (work-marks.ts).
  const store = withWorkMarks(withEvents(parts.store, resources, { config: parts.config, clock }));
  const webhooks = parts.webhooks ?? new WebhookDispatcher({ store, config: parts.config, clock, log });
  const streams = parts.streams ?? new EventStreams(store, { perUser: parts.config.eventStreamsPerUser, databaseMs: Math.round(parts.config.databaseTimeout * 1000) });
  const geo = parts.geo ?? countryGeolocator(parts.config);
  const s: Services = { store, config: parts.config, clock, random, log, resources, counters, secret, limits, renderer, proofs, audit, keyUses, disabledUsers: new DisabledUsers(store), webhooks, streams, geo };
  const windowMs = s.config.rateLimitWindow * 1000;
  const failures = limits('auth-failures', s.config.authFailureLimit, windowMs);
  const keys = new KeyIndex(s.store, scopedKeysIn(s.resources));
  // Which scope each route needs, derived from the rows' paths; checked after the rate limit.
  const scopes = new RouteScopes(s.resources);
  // One count of wrong passwords for protected links and stats pages alike.
  const attempts = new PasswordAttempts(s.config, s.clock);
  // Requests per user of the link API, which the dashboard's signed-in pages count against too.
  const linkLimiter = limits('link', s.config.rateLimit, windowMs);
  const linkAuth = authenticator(s, { keys, failures, limiter: linkLimiter });
  const analyticsAuth = authenticator(s, { keys, failures, limiter: limits('analytics', s.config.analyticsRateLimit, windowMs) });
  // Which check a path under /api needs (a route's pattern or a request's path), or null.
  const authFor = (path: string) => (isApiPath(path) && !PUBLIC_API.has(path) ? (isAnalyticsPath(path) ? analyticsAuth : linkAuth) : null);

  // Import jobs run in this process, off the requests; stopped (the running one handed back) before the store closes.
  const imports = new ImportRunner(s);
  parts.store.beforeClose(() => imports.stop());
  if (parts.importPollMs) imports.poll(parts.importPollMs).catch((err: unknown) => log.error('looking for import jobs failed', { error: String(err) }));

  const app = new Hono<AppEnv>();
  // Every wait of the store on a request's behalf ends within DATABASE_TIMEOUT in all, so that a
  // database that went silent is answered 503 in time, however many steps the request has
  // (deadline.ts). Each handler that may wait carries it, rather than one middleware in front of
  // all: a second handler on every request would make every answer asynchronous, and a counted
  // redirect of a link at hand answers in one synchronous step (~25% of its CPU).
  const databaseMs = Math.round(s.config.databaseTimeout * 1000);
  const deadlined = <C, N, R>(handler: (c: C, next: N) => R) => (c: C, next: N): R => withStoreDeadline(databaseMs, () => handler(c, next));
  const bodyLimit = requestBodyLimit(s.config.bodyLimit, () => { throw new ApiError(413, `The request body is larger than ${s.config.bodyLimit} bytes.`); });
  // An upload's body is a file (the API's or the dashboard's): FILE_MAX_BYTES bounds it instead (with room for multipart framing).
  const uploadLimit = requestBodyLimit(s.config.fileMaxBytes + MULTIPART_ALLOWANCE, () => { throw tooLarge(s.config.fileMaxBytes); });
  // A bulk request carries up to 1,000 links: BULK_BODY_LIMIT bounds it instead; an import's file, IMPORT_MAX_BYTES.
  const bulkLimit = requestBodyLimit(s.config.bulkBodyLimit, () => { throw new ApiError(413, `The request body is larger than ${s.config.bulkBodyLimit} bytes (BULK_BODY_LIMIT).`); });
  const importLimit = requestBodyLimit(s.config.importMaxBytes + MULTIPART_ALLOWANCE, () => { throw importTooLarge(s.config.importMaxBytes); });
  app.on(BODY_METHODS, '*', (c, next) => {
    const path = c.req.path;
    if (path.startsWith(UPLOAD_PREFIX) || path === DASHBOARD_UPLOAD_PATH) return uploadLimit(c, next);
    if (path === IMPORT_PATH) return importLimit(c, next);
    return isBulkPath(path) ? bulkLimit(c, next) : bodyLimit(c, next);
  });
  // Liveness: the process answers. Readiness (/ready): it can serve, its database answering.
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/ready', readyRoute(parts.readiness ?? storeReadiness(s.store, s.config)));
  const areas = [
    registerRoutes(s, failures),
    accountRoutes(s),
    docsRoutes(s),
    campaignRoutes(s),
    channelRoutes(s),
    linkRoutes(s),
    linkStatsRoutes(s),
    linkStatsExportRoutes(s),
    bulkRoutes(s),
    wrapperRoutes(s),
    planRoutes(s),
    domainVerificationRoutes(s),
    loginLinkRoutes(s),
    userDisableRoutes(s),
    fileRoutes(s),
    webhookRoutes(s),
    eventStreamRoutes(s),
    importRoutes(s, imports),
    analyticsRoutes(s, attempts),
    ...s.resources.filter((row) => row.api !== 'analytics').map((row) => crudRoutes(s, row)),
    // The dashboard (DASHBOARD on): pages under /app, signed in by sessions of their own, not API keys.
    ...dashboardAreas(s, { attempts, keys, failures, limiter: linkLimiter, pageLimiter: limits('dashboard-pages', s.config.dashboardPageLimit, windowMs) }),
    // Last: `/:alias` would otherwise answer for every one-segment path above.
    faviconRoutes(),
    qrImageRoutes(s),
    campaignPageRoutes(s),
    bioPageRoutes(s),
    loginPageRoutes(s),
    redirectRoutes(s, attempts),
  ];
  const routes = areas.flatMap((area) => area.routes);
  const methods = new MethodTable();
  methods.add('GET', '/health');
  methods.add('GET', '/ready');
  for (const r of routes) methods.add(r.method, r.path);

  // A wrong method on a known path is a 405 after the same key check a right one gets (an unknown
  // path's too, in notFound). Where a less literal pattern would take the request (GET
  // /api/url/add to GET /api/url/:id), a 405 route goes in front of it; every other request
  // matches exactly the routes it did before.
  const afterAuth = (c: Context<AppEnv>, answer: () => Response): Response | Promise<Response> => {
    const checking = authFor(c.req.path)?.(c);
    return checking ? checking.then(answer) : answer();
  };
  // A browser opening a page outside the APIs gets a page (see wantsPage); everything else, the API's JSON.
  const answerError = (c: Context<AppEnv>, err: ApiError) => (wantsPage(c) ? renderErrorPage(c, err) : renderError(c, err, s.config.errorStatus));
  const wrongMethod = (c: Context<AppEnv>, allow: string[]) => afterAuth(c, () => answerError(c, methodNotAllowed(c, allow)));
  for (const r of methods.shadowed()) {
    app.on(
      r.method,
      r.pattern,
      deadlined((c: Context<AppEnv>, next: Next) => {
        const allow = methods.wrongMethod(c.req.method, c.req.path);
        return allow ? wrongMethod(c, allow) : next();
      }),
    );
  }
  // Every route of an area is mounted here, and each one under /api (but the public ones) gets its
  // API's key check, rate limit and scope check in front of its handler, and writes their audit
  // entry: request → auth → limiter → scope → idempotency → handler → audit. Every POST of the
  // link API (authenticated: keys are per user) honours Idempotency-Key, but those answering a new key.
  const idempotent = idempotencyKeys(s);
  for (const r of routes) {
    const authenticate = authFor(r.path);
    const handler = r.method === 'POST' && authenticate === linkAuth && !ANSWERS_WITH_SECRETS.has(r.path) ? idempotent(r.handler) : r.handler;
    app.on(r.method, r.path, deadlined(authenticate ? guarded(authenticate, permitted(s, scopes, r.method, r.path, handler)) : r.handler));
  }

  app.notFound((c) =>
    withStoreDeadline(databaseMs, () => {
      const allow = methods.wrongMethod(c.req.method, c.req.path);
      if (allow) return wrongMethod(c, allow);
      // An unknown path under /api still needs a good key first, as a known one does.
      return afterAuth(c, () => answerError(c, new ApiError(404, isAnalyticsPath(c.req.path) ? 'Resource not found.' : 'Endpoint not found.')));
    }),
  );
  app.onError((err, c) => withStoreDeadline(databaseMs, () => answerError(c, toApiError(err, s.log, c))));
  return app;
}
