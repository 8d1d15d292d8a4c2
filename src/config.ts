/** Server configuration: the only module that reads the environment or the command line. */
import { closestName } from './closest-name.ts';
import { ConfigError, LOG_LEVELS, parseValue } from './config-values.ts';
import type { DomainCheck, ErrorStatus, Kind, LimitOnError, LogLevel } from './config-values.ts';
import type { TrustProxy } from './http/trust-proxy.ts';

export { ConfigError, DOMAIN_CHECKS, LIMIT_ON_ERROR, LOG_LEVELS } from './config-values.ts';
export type { DomainCheck, ErrorStatus, LimitOnError, LogLevel } from './config-values.ts';

/** Everything the server can be told, after parsing and validation. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A postgres:// URL: data in PostgreSQL instead of DATA_DIR's JSON files. */
  databaseUrl: string | undefined;
  /** Connections in the PostgreSQL pool. */
  databasePool: number;
  /** The PostgreSQL schema of the tables. */
  databaseSchema: string;
  /** Seconds (fractions allowed) a request waits for the database in all before its 503; also PostgreSQL's statement timeout. */
  databaseTimeout: number;
  /** Streaming replicas of DATABASE_URL's database (postgres:// URLs): plain reads go there when one is known to hold what they must see. */
  databaseReadUrl: string[];
  /** Seconds a replica may be behind the primary before its reads go elsewhere. */
  databaseReadMaxLag: number;
  baseUrl: string;
  /** False when BASE_URL was not given, so the server may derive it from the port it really got. */
  baseUrlExplicit: boolean;
  adminApiKey: string | undefined;
  rateLimit: number;
  /** Dashboard pages (GET) per window and user; its forms count against rateLimit. 0 disables. */
  dashboardPageLimit: number;
  rateLimitWindow: number;
  analyticsRateLimit: number;
  authFailureLimit: number;
  /** Wrong passwords per window and client IP on protected links and stats pages; 0 disables. */
  passwordAttemptLimit: number;
  /** Wrong passwords per window on one protected link or stats page, all clients together; 0 disables. */
  passwordAttemptLinkLimit: number;
  /** Length of the password-attempt window, seconds. */
  passwordAttemptWindow: number;
  openRegistration: boolean;
  /** The dashboard under /app (sign-in, links); off: no route of it at all. */
  dashboard: boolean;
  /** Days a dashboard session lasts after sign-in. */
  dashboardSessionDays: number;
  logLevel: LogLevel;
  bodyLimit: number;
  /** Largest body of a bulk request (POST /api/url/bulk…), bytes: its own limit, in place of bodyLimit on those routes. */
  bulkBodyLimit: number;
  /** Largest uploaded file (the Files API), bytes: its own limit, in place of bodyLimit on the upload route. */
  fileMaxBytes: number;
  /** Largest file POST /api/import takes, bytes: its own limit, in place of bodyLimit on that route. */
  importMaxBytes: number;
  /** Which peers may tell the client IP in X-Forwarded-For: none, a number of hops, or a list of proxy addresses/CIDRs. */
  trustProxy: TrustProxy;
  snapshotEvery: number;
  snapshotBytes: number;
  redirectStatus: number;
  /** HTTP status of link-management API errors (the body keeps `error: 1` either way); the analytics API always uses real ones. */
  errorStatus: ErrorStatus;
  logoFetch: boolean;
  /** Request header holding the visitor's two-letter country code, set by a trusted proxy or CDN. */
  countryHeader: string;
  /** Look up each visitor's country by IP in the bundled database (and region and city in geoipDatabase); off: the country header only. */
  geoip: boolean;
  /** A MaxMind-format City database (GeoLite2-City, DB-IP City Lite) for region and city, reloaded when the file changes. */
  geoipDatabase: string | undefined;
  /** Tracking events per window and client IP on POST /api/event; 0 disables. */
  eventRateLimit: number;
  domainCheck: DomainCheck;
  /** Public addresses of this server, canonical form; branded domains must resolve to one when domainCheck is dns. */
  serverIp: string[];
  /** Host names that are this server's own (beside BASE_URL's): never a branded domain, always the main host. */
  reservedDomains: string[];
  /** Other host names that no branded domain may be, nor any of their subdomains (a hosting provider's names, public suffixes). */
  refusedDomains: string[];
  /** Enables POST /__admin/reset, /__admin/seed, /__admin/clock and /__admin/webhooks/deliver (admin key), a settable clock and a seeded random source. */
  testMode: boolean;
  /** A fixtures file or directory loaded at start into an empty data directory. */
  seed: string | undefined;
  /** Worker processes on one port (node:cluster), or 'auto' for one per core; 1 runs no cluster. */
  workers: number | 'auto';
  /** A redis:// URL: rate-limit windows in Redis (or Valkey) instead of PostgreSQL or memory. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key (default `shortlink:<DATABASE_SCHEMA>:`). */
  redisPrefix: string;
  /** What rate limits do while Redis (or PostgreSQL) cannot count. */
  rateLimitOnError: LimitOnError;
  /** Threads drawing QR images in each process, or 'auto' (see renderThreadCount). */
  renderThreads: number | 'auto';
  /** QR images that may wait for a render thread in each process; one more answers 503. */
  renderQueue: number;
  /** Uncached QR images per window (RATE_LIMIT_WINDOW) and client IP; 0 disables. */
  renderRateLimit: number;
  /** Bytes of rendered QR images each process keeps. */
  renderCacheBytes: number;
  /** Public stats page views and downloads per window (RATE_LIMIT_WINDOW) and client IP; 0 disables. */
  statsPageRateLimit: number;
  /** Seconds a client has to send a request's headers (and, for a body, the grace before MIN_BODY_RATE applies). */
  headersTimeout: number;
  /** Seconds a whole request (headers and body) may take to arrive. */
  requestTimeout: number;
  /** Seconds an idle keep-alive connection is kept open. */
  keepAliveTimeout: number;
  /** Slowest accepted request body, bytes per second on average; 0 disables. */
  minBodyRate: number;
  /** Open connections of this process at most, or 'auto': what the descriptor limit allows. */
  maxConnections: number | 'auto';
  /** Open connections of one client address at most (trusted proxies excepted); 0 disables. */
  maxClientConnections: number;
  /** Days the audit log keeps its entries; 0 keeps them forever. */
  auditRetentionDays: number;
  /** Days of daily statistics kept before today (older days are removed); 0 keeps them for ever. */
  statsRetentionDays: number;
  /** Days of hourly detail (the `_hour` metrics) kept before today, older days keeping their daily totals; 0 keeps it for ever. */
  statsHourlyDays: number;
  /** Whether webhooks may go to private and loopback addresses (a LAN, tests); on by default in test mode only. */
  webhookPrivateTargets: boolean;
  /** Seconds one webhook delivery may take, connection to last byte. */
  webhookTimeout: number;
  /** Webhook deliveries in flight at once, per process. */
  webhookConcurrency: number;
  /** Days events and the delivery log are kept (the event stream resumes within them). */
  eventRetentionDays: number;
  /** Event streams (GET /api/events/stream) one user may have open at once, per process. */
  eventStreamsPerUser: number;
}

/** A command-line argument that is no setting's flag: its message names it and the nearest flag. */
export class UnknownOptionError extends ConfigError {
  constructor(
    message: string,
    /** The flag as given (`--prot`); absent for a stray word. */
    readonly flag?: string,
  ) {
    super(message);
  }
}

interface Setting {
  key: keyof Config;
  env: string;
  kind: Kind;
  fallback: string | undefined;
  help: string;
}

/** Every setting: its environment variable (each is also a `--kebab-case` flag), default and meaning. */
export const SETTINGS: readonly Setting[] = [
  { key: 'port', env: 'PORT', kind: 'port', fallback: '3000', help: 'TCP port to listen on (0 picks a free one)' },
  { key: 'host', env: 'HOST', kind: 'string', fallback: '0.0.0.0', help: 'Interface to bind' },
  { key: 'dataDir', env: 'DATA_DIR', kind: 'string', fallback: './data', help: 'Directory of the JSON data files; :memory: keeps everything in memory' },
  { key: 'databaseUrl', env: 'DATABASE_URL', kind: 'database-url', fallback: undefined, help: 'postgres://user:password@host:port/database (a Unix socket: postgres://user@/database?host=/run/postgresql): keep the data in PostgreSQL (DATA_DIR is then not used)' },
  { key: 'databasePool', env: 'DATABASE_POOL', kind: 'int', fallback: '10', help: 'Connections in the PostgreSQL pool' },
  { key: 'databaseSchema', env: 'DATABASE_SCHEMA', kind: 'identifier', fallback: 'public', help: 'PostgreSQL schema holding the tables (several servers can share one database in different schemas)' },
  { key: 'databaseTimeout', env: 'DATABASE_TIMEOUT', kind: 'seconds', fallback: '5', help: 'Seconds a request waits for the database in all (every connection, statement and retry it needs) before it is answered 503 with Retry-After; its waits for a render thread or a password hash are not counted (their queues bound them). Also the statement timeout of PostgreSQL. Fractions allowed (0.5)' },
  { key: 'databaseReadUrl', env: 'DATABASE_READ_URL', kind: 'database-urls', fallback: undefined, help: "Streaming replicas of DATABASE_URL's database, comma-separated postgres:// URLs: redirects, lists and statistics are read there when a replica holds every write the process has made or heard of, else on the primary (see postgresql.md); writes always go to DATABASE_URL" },
  { key: 'databaseReadMaxLag', env: 'DATABASE_READ_MAX_LAG', kind: 'seconds', fallback: '1', help: 'Seconds a replica of DATABASE_READ_URL may be behind the primary before it is skipped (with one log line) until it catches up. Fractions allowed (0.5)' },
  { key: 'baseUrl', env: 'BASE_URL', kind: 'url', fallback: undefined, help: 'Public origin used in every URL the API returns (default http://localhost:<PORT>)' },
  { key: 'adminApiKey', env: 'ADMIN_API_KEY', kind: 'key', fallback: undefined, help: 'API key of the admin user created on first start (generated and printed once when unset)' },
  { key: 'rateLimit', env: 'RATE_LIMIT', kind: 'int', fallback: '30', help: 'Requests per window and user on the link-management API, all of its keys together; 0 disables' },
  { key: 'dashboardPageLimit', env: 'DASHBOARD_PAGE_LIMIT', kind: 'int', fallback: '300', help: "Dashboard pages opened per window and user before its 429 page (its forms count against RATE_LIMIT, with the user's API calls); 0 disables" },
  { key: 'rateLimitWindow', env: 'RATE_LIMIT_WINDOW', kind: 'int', fallback: '60', help: 'Length of the rate-limit window, seconds' },
  { key: 'analyticsRateLimit', env: 'ANALYTICS_RATE_LIMIT', kind: 'int', fallback: '60', help: 'Requests per window and user on the analytics API, all of its keys together; 0 disables' },
  { key: 'authFailureLimit', env: 'AUTH_FAILURE_LIMIT', kind: 'int', fallback: '20', help: 'Failed authentications per window and client IP before that IP\'s bad keys get 429 (a valid key always passes); 0 disables' },
  { key: 'passwordAttemptLimit', env: 'PASSWORD_ATTEMPT_LIMIT', kind: 'int', fallback: '10', help: 'Wrong passwords per window and client IP on protected links, files and stats pages before 429; 0 disables' },
  { key: 'passwordAttemptLinkLimit', env: 'PASSWORD_ATTEMPT_LINK_LIMIT', kind: 'int', fallback: '50', help: 'Wrong passwords per window on one protected link, file or stats page, from all clients together, before 429; 0 disables' },
  { key: 'passwordAttemptWindow', env: 'PASSWORD_ATTEMPT_WINDOW', kind: 'int', fallback: '300', help: 'Length of the password-attempt window, seconds' },
  { key: 'openRegistration', env: 'OPEN_REGISTRATION', kind: 'bool', fallback: 'off', help: 'Allow POST /api/register without a key (and the dashboard\'s /app/register page)' },
  { key: 'dashboard', env: 'DASHBOARD', kind: 'bool', fallback: 'on', help: 'Serve the dashboard under /app (sign in, manage links, their QR codes and statistics); off: no /app route at all (404)' },
  { key: 'dashboardSessionDays', env: 'DASHBOARD_SESSION_DAYS', kind: 'int', fallback: '14', help: 'Days a dashboard session lasts after signing in (then the user signs in again); 1 to 365' },
  { key: 'logLevel', env: 'LOG_LEVEL', kind: 'level', fallback: 'info', help: `Log verbosity: ${LOG_LEVELS.join(', ')}` },
  { key: 'bodyLimit', env: 'BODY_LIMIT', kind: 'int', fallback: String(1024 * 1024), help: 'Largest accepted request body, bytes' },
  { key: 'bulkBodyLimit', env: 'BULK_BODY_LIMIT', kind: 'int', fallback: String(8 * 1024 * 1024), help: 'Largest accepted body of a bulk request (POST /api/url/bulk, /api/url/bulk/update, /api/url/bulk/delete; up to 1,000 links), bytes; those routes take it in place of BODY_LIMIT' },
  { key: 'fileMaxBytes', env: 'FILE_MAX_BYTES', kind: 'int', fallback: String(5 * 1024 * 1024), help: 'Largest file accepted by POST /api/files/upload/:filename, bytes (that route takes it in place of BODY_LIMIT; multipart bodies may be 64 KiB larger)' },
  { key: 'importMaxBytes', env: 'IMPORT_MAX_BYTES', kind: 'int', fallback: String(32 * 1024 * 1024), help: 'Largest file accepted by POST /api/import, bytes (that route takes it in place of BODY_LIMIT; multipart bodies may be 64 KiB larger); import-links on the command line has no limit' },
  { key: 'trustProxy', env: 'TRUST_PROXY', kind: 'trust-proxy', fallback: 'off', help: 'Proxies whose X-Forwarded-For gives the client IP: off, on (one hop), a number of hops, or comma-separated proxy IPs/CIDRs (see Behind a proxy)' },
  { key: 'redirectStatus', env: 'REDIRECT_STATUS', kind: 'redirect', fallback: '302', help: 'HTTP status of short-link redirects: 301, 302, 307 or 308' },
  { key: 'errorStatus', env: 'ERROR_STATUS', kind: 'error-status', fallback: 'real', help: 'HTTP status of link-management API errors: real (400, 401, 404, …) or 200 for the errors a client fixes by changing its request, as the real product answers, for clients that stop on any other status (429, 503, 409 and 500 keep theirs); the body is `{"error":1,"message":…}` either way, and the analytics API keeps real statuses' },
  { key: 'logoFetch', env: 'LOGO_FETCH', kind: 'bool', fallback: 'on', help: 'Fetch QR logos given as URLs (public addresses only) when rendering QR images' },
  { key: 'snapshotEvery', env: 'SNAPSHOT_EVERY', kind: 'int', fallback: '20000', help: 'Journal entries between two JSON snapshots of the data files' },
  { key: 'snapshotBytes', env: 'SNAPSHOT_BYTES', kind: 'int', fallback: String(64 * 1024 * 1024), help: 'Journal bytes between two JSON snapshots (whichever of SNAPSHOT_EVERY and this comes first)' },
  { key: 'countryHeader', env: 'COUNTRY_HEADER', kind: 'string', fallback: 'cf-ipcountry', help: 'Request header with the visitor country code, set by your proxy or CDN (clients must not be able to set it)' },
  { key: 'geoip', env: 'GEOIP', kind: 'bool', fallback: 'on', help: "Find each visitor's country from the IP address in the bundled DB-IP Lite country database (and region and city in GEOIP_DATABASE); COUNTRY_HEADER, when a request has it, wins. off: the header only" },
  { key: 'geoipDatabase', env: 'GEOIP_DATABASE', kind: 'string', fallback: undefined, help: 'Path of a MaxMind-format City database you provide (GeoLite2-City or DB-IP City Lite, .mmdb) for region and city; read again when the file changes (a broken new file keeps the old one)' },
  { key: 'eventRateLimit', env: 'EVENT_RATE_LIMIT', kind: 'int', fallback: '120', help: 'Tracking events per window and client IP on POST /api/event; 0 disables' },
  { key: 'domainCheck', env: 'DOMAIN_CHECK', kind: 'domain-check', fallback: 'off', help: 'off; dns: a branded domain must resolve to SERVER_IP before it is added; txt: the user must first publish a DNS TXT record proving they own it (GET /api/domains/verification names it)' },
  { key: 'serverIp', env: 'SERVER_IP', kind: 'ips', fallback: undefined, help: 'Public IP address(es) of this server, comma-separated; required when DOMAIN_CHECK=dns' },
  { key: 'reservedDomains', env: 'RESERVED_DOMAINS', kind: 'hosts', fallback: undefined, help: "Host names of this server beside BASE_URL's, comma-separated: never accepted as branded domains (nor their subdomains), always served as the main host" },
  { key: 'refusedDomains', env: 'REFUSED_DOMAINS', kind: 'hosts', fallback: undefined, help: 'Other host names, comma-separated, that are never accepted as branded domains, each with all its subdomains (example.com refuses example.com and www.example.com)' },
  { key: 'seed', env: 'SEED', kind: 'string', fallback: undefined, help: 'Fixtures file (or directory of <collection>.json files) loaded at start when the data directory is empty' },
  { key: 'workers', env: 'WORKERS', kind: 'workers', fallback: '1', help: 'Worker processes serving the one port (node:cluster), or auto for one per core; more than 1 needs DATABASE_URL (with the JSON files, auto means 1). A crashed worker is restarted' },
  { key: 'redisUrl', env: 'REDIS_URL', kind: 'redis-url', fallback: undefined, help: 'redis://[user:password@]host:port[/db] of a Redis or Valkey: rate-limit windows counted there (default: in PostgreSQL with DATABASE_URL, else in memory)' },
  { key: 'redisPrefix', env: 'REDIS_PREFIX', kind: 'string', fallback: undefined, help: 'Prefix of every Redis key, so several servers can share one Redis (default shortlink:<DATABASE_SCHEMA>:)' },
  { key: 'rateLimitOnError', env: 'RATE_LIMIT_ON_ERROR', kind: 'on-error', fallback: 'open', help: 'While Redis (or PostgreSQL) cannot count rate limits: open lets requests pass without X-RateLimit headers, closed answers 503 with Retry-After' },
  { key: 'renderThreads', env: 'RENDER_THREADS', kind: 'threads', fallback: 'auto', help: 'Threads that draw QR images in each process (the event loop never does), or auto: one less than the cores, shared among the WORKERS processes, at least 1 (1 on 2 cores)' },
  { key: 'renderQueue', env: 'RENDER_QUEUE', kind: 'int', fallback: '16', help: 'QR images that may wait for a render thread in each process; beyond them /qr/<alias> answers 503 with Retry-After' },
  { key: 'renderRateLimit', env: 'RENDER_RATE_LIMIT', kind: 'int', fallback: '60', help: 'QR images rendered (not answered from the cache) per window and client IP before 429; 0 disables' },
  { key: 'renderCacheBytes', env: 'RENDER_CACHE_BYTES', kind: 'int', fallback: String(32 * 1024 * 1024), help: 'Bytes of rendered QR images each process keeps (sizes are drawn at 11 fixed steps from 64 to 2048 px); 0 keeps none' },
  { key: 'statsPageRateLimit', env: 'STATS_PAGE_RATE_LIMIT', kind: 'int', fallback: '60', help: 'Stats pages (/stats/<domain>) and their CSV and zip downloads per window and client IP before 429; 0 disables' },
  { key: 'headersTimeout', env: 'HEADERS_TIMEOUT', kind: 'int', fallback: '10', help: "Seconds a client has to send a request's headers before its connection is closed (408)" },
  { key: 'requestTimeout', env: 'REQUEST_TIMEOUT', kind: 'int', fallback: '120', help: 'Seconds a whole request, headers and body, may take to arrive before its connection is closed (408)' },
  { key: 'keepAliveTimeout', env: 'KEEP_ALIVE_TIMEOUT', kind: 'int', fallback: '5', help: 'Seconds an idle keep-alive connection stays open' },
  { key: 'minBodyRate', env: 'MIN_BODY_RATE', kind: 'int', fallback: '1024', help: 'Slowest accepted request body, bytes per second on average once HEADERS_TIMEOUT has passed; a slower one gets 408 and its connection is closed; 0 disables' },
  { key: 'maxConnections', env: 'MAX_CONNECTIONS', kind: 'connections', fallback: 'auto', help: "Open connections per process at most, or auto: what the open-file limit allows beside the server's own files. At the cap the oldest connection waiting for a request is closed for the new one, or the new one is refused at once" },
  { key: 'maxClientConnections', env: 'MAX_CLIENT_CONNECTIONS', kind: 'int', fallback: '128', help: 'Open connections per process from one client address at most (trusted proxies of TRUST_PROXY excepted); more are refused at once; 0 disables' },
  { key: 'auditRetentionDays', env: 'AUDIT_RETENTION_DAYS', kind: 'int', fallback: '90', help: 'Days the audit log of API writes (GET /api/audit) keeps its entries; older ones are removed every hour; 0 keeps them forever' },
  { key: 'statsRetentionDays', env: 'STATS_RETENTION_DAYS', kind: 'int', fallback: '0', help: 'Days of statistics kept before today, for websites, links, QR codes, campaigns and files alike: older days are removed at start and once a day; 0 keeps them forever' },
  { key: 'statsHourlyDays', env: 'STATS_HOURLY_DAYS', kind: 'int', fallback: '90', help: 'Days before today whose hourly statistics (pageviews_hour, visitors_hour) are kept; older days keep their daily totals and breakdowns; 0 keeps them forever' },
  { key: 'webhookPrivateTargets', env: 'WEBHOOK_PRIVATE_TARGETS', kind: 'bool', fallback: undefined, help: 'Let webhooks go to private, loopback and link-local addresses (a LAN, tests); off by default, on by default with TEST_MODE' },
  { key: 'webhookTimeout', env: 'WEBHOOK_TIMEOUT', kind: 'seconds', fallback: '10', help: 'Seconds a webhook delivery may take, from connecting to the last byte of the answer, before it counts as failed and is retried' },
  { key: 'webhookConcurrency', env: 'WEBHOOK_CONCURRENCY', kind: 'int', fallback: '8', help: 'Webhook deliveries in flight at once, per process (one at a time per webhook, in order)' },
  { key: 'eventRetentionDays', env: 'EVENT_RETENTION_DAYS', kind: 'int', fallback: '7', help: 'Days events and webhook delivery logs are kept; an event stream resumes (Last-Event-ID) within them. At least 2, as deliveries are retried for 24 hours' },
  { key: 'eventStreamsPerUser', env: 'EVENT_STREAMS_PER_USER', kind: 'int', fallback: '5', help: 'Event streams (GET /api/events/stream) one user may have open at once, per process; more get 429' },
  { key: 'testMode', env: 'TEST_MODE', kind: 'bool', fallback: 'off', help: 'For tests only: POST /__admin/reset, /__admin/seed, /__admin/clock, /__admin/webhooks/deliver (admin key), settable clock, seeded aliases, webhooks allowed to private addresses' },
];

/** `--rate-limit-window` for `RATE_LIMIT_WINDOW`. */
export function flagName(env: string): string {
  return `--${env.toLowerCase().replace(/_/g, '-')}`;
}

/** Every flag the server takes: each setting's, and --help. */
export function knownFlags(): string[] {
  return [...SETTINGS.map((s) => flagName(s.env)), '--help'];
}

/**
 * "Unknown option --prot: did you mean --port?". Only the flag is named, never a value (`--admin-api-ky=sk_…`):
 * a value may be a key. The nearest flag is offered within a few edits, so a wild guess is never offered.
 */
export function unknownOption(flag: string, known: readonly string[]): UnknownOptionError {
  const near = closestName(flag, known, Math.max(2, Math.floor(flag.length / 4)));
  return new UnknownOptionError(`Unknown option ${flag}: ${near ? `did you mean ${near}?` : 'run --help for the list.'}`, flag);
}

/** Reads `--flag value` and `--flag=value` pairs; flags win over the environment. Anything else is refused, so a typo never starts a server on defaults. */
function flagsFrom(argv: readonly string[]): Map<string, string> {
  const known = new Map(SETTINGS.map((s) => [flagName(s.env), s.env]));
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const env = known.get(flag);
    if (!env) {
      // A stray word is not echoed either: it may be a value whose flag was mistyped away.
      if (!flag.startsWith('-')) throw new UnknownOptionError(`Unexpected argument #${i + 1}: settings are given as --flag value; run --help for the list.`);
      throw unknownOption(flag, knownFlags());
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`Missing value for ${flag}`);
    out.set(env, value);
  }
  return out;
}

/**
 * Variables of `env` that look like a mistyped setting (`RATE_LIMT`, `DATADIR`, `port`), each with
 * the setting it is nearest to. Only warned about, never refused: the environment is shared with
 * other programs (a shell, a compose file, systemd), whose names may sit close to ours (`HOSTS`).
 * Short names allow one edit, longer ones two, so `HOME` is not taken for `HOST`.
 */
export function misspelledSettings(env: Record<string, string | undefined>): { name: string; setting: string }[] {
  const settings = SETTINGS.map((s) => s.env);
  const out: { name: string; setting: string }[] = [];
  for (const name of Object.keys(env)) {
    if (settings.includes(name)) continue;
    const upper = name.toUpperCase();
    const setting = closestName(upper, settings, upper.length >= 8 ? 2 : 1);
    if (setting) out.push({ name, setting });
  }
  return out;
}

/** Builds the configuration from an environment and command-line flags; throws ConfigError naming the bad setting. */
export function loadConfig(env: Record<string, string | undefined> = {}, argv: readonly string[] = []): Config {
  const flags = flagsFrom(argv);
  const out: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    // An empty variable counts as unset (compose files often pass `FOO=`).
    const given = flags.get(s.env) ?? (env[s.env] === '' ? undefined : env[s.env]);
    const raw = given ?? s.fallback;
    out[s.key] = raw === undefined ? undefined : parseValue(s, raw);
  }
  const config = out as unknown as Config;
  if (config.rateLimitWindow === 0) throw new ConfigError('Invalid RATE_LIMIT_WINDOW: "0" must be at least 1 second');
  if (config.databasePool === 0) throw new ConfigError('Invalid DATABASE_POOL: "0" must be at least 1 connection');
  if (config.passwordAttemptWindow === 0) throw new ConfigError('Invalid PASSWORD_ATTEMPT_WINDOW: "0" must be at least 1 second');
  if (config.dashboardSessionDays < 1 || config.dashboardSessionDays > 365) throw new ConfigError(`Invalid DASHBOARD_SESSION_DAYS: "${config.dashboardSessionDays}" must be from 1 to 365`);
  for (const [env, value] of [['HEADERS_TIMEOUT', config.headersTimeout], ['REQUEST_TIMEOUT', config.requestTimeout], ['KEEP_ALIVE_TIMEOUT', config.keepAliveTimeout]] as const) {
    if (value === 0) throw new ConfigError(`Invalid ${env}: "0" must be at least 1 second`);
  }
  if (config.requestTimeout < config.headersTimeout) throw new ConfigError(`Invalid REQUEST_TIMEOUT: ${config.requestTimeout} must be at least HEADERS_TIMEOUT (${config.headersTimeout}), as the headers are part of the request`);
  config.serverIp ??= [];
  config.databaseReadUrl ??= [];
  if (config.databaseReadUrl.length > 0 && !config.databaseUrl) throw new ConfigError('Invalid DATABASE_READ_URL: replicas need DATABASE_URL, the primary every write goes to');
  config.reservedDomains ??= [];
  config.refusedDomains ??= [];
  if (typeof config.workers === 'number' && config.workers > 1 && !config.databaseUrl) {
    throw new ConfigError(`Invalid WORKERS: ${config.workers} workers need DATABASE_URL, as the JSON data files belong to one process (set WORKERS=1, or keep the data in PostgreSQL)`);
  }
  config.redisPrefix ??= `shortlink:${config.databaseSchema}:`;
  // Tests deliver webhooks to a receiver on this machine; production refuses private addresses unless told.
  config.webhookPrivateTargets ??= config.testMode;
  if (config.webhookConcurrency === 0) throw new ConfigError('Invalid WEBHOOK_CONCURRENCY: "0" must be at least 1 delivery');
  if (config.eventRetentionDays < 2) throw new ConfigError(`Invalid EVENT_RETENTION_DAYS: "${config.eventRetentionDays}" must be at least 2 days, as deliveries are retried for 24 hours`);
  if (config.domainCheck === 'dns' && config.serverIp.length === 0) throw new ConfigError('Invalid SERVER_IP: required when DOMAIN_CHECK=dns');
  config.baseUrlExplicit = config.baseUrl !== undefined;
  config.baseUrl ??= `http://localhost:${config.port}`;
  return config;
}

/** The process environment, read here and nowhere else. */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}
