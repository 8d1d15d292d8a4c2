/** The benchmark's scenarios: what is loaded, on which server, with which data. */
import { join } from 'node:path';
import type { Load } from './load.ts';
import { isOther, otherMain, ownServer } from './compare.ts';
import { PG_URL } from './pg-seed.ts';
import { appSpec, baselineSpec, jsonServerSpec } from './processes.ts';
import type { ProcSpec } from './processes.ts';
import { BENCH_KEY, BENCH_SITE, linkAlias } from './seed.ts';
import { addresses } from './geo-lookup.ts';
import { bundledCountryReader } from '../src/geo/bundled-country.ts';
import { Geolocator } from '../src/geo/geolocator.ts';
import { availableParallelism } from 'node:os';

/** How many records each seeded directory holds. */
export const SIZES = { list: 10_000, links: 100_000, create: [1_000, 10_000, 100_000] } as const;

/** One line of the table. */
export interface Scenario {
  id: string;
  label: string;
  records: number;
  /** Which server process serves it; scenarios naming the same server share one process. */
  server: string;
  load: Load;
  /** Started from a fresh copy of this seeded directory (or file) before every round, so writes do not pile up. */
  freshFrom?: string;
  /** Records each request writes (a bulk request's links): the table shows them per second too. */
  perRequest?: number;
  /** Connections of this scenario's load, in place of --connections (a bulk request is a large unit of work). */
  connections?: number;
}

/** Paths of the seeded data inside the run's temporary folder. */
export function seededPaths(root: string) {
  return {
    list: join(root, 'qrs-10k'),
    links: join(root, 'links-100k'),
    event: join(root, 'event'),
    // Copies for the GEOIP=off twins: a data directory serves one server at a time.
    linksNoGeo: join(root, 'links-100k-nogeo'),
    eventNoGeo: join(root, 'event-nogeo'),
    linksHeader: join(root, 'links-100k-header'),
    eventHeader: join(root, 'event-header'),
    eventOff: join(root, 'event-off'),
    create: (n: number) => join(root, `create-seed-${n / 1000}k`),
    jsonServerDb: join(root, 'json-server-10k.json'),
  };
}

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const AUTH = { authorization: `Bearer ${BENCH_KEY}` };
const JSON_TYPE = { 'content-type': 'application/json' };
const PAGES = SIZES.list / 25;
/** Clicks go to a hot set spread over all 100,000 links (traffic is skewed; each clicked link also gets a statistics record). */
export const HOT_LINKS = 2000;
const NEW_QR = JSON.stringify({ type: 'text', data: 'Hello bench', name: 'Bench QR' });
const visitors = addresses(2000);
const located = new Geolocator({ country: bundledCountryReader() });
const countryOf = (ip: string) => located.locate(ip).country;

/** Links per bulk request, and how many different bodies a round cycles through. */
export const BULK = { links: 1000, variants: 300, connections: 4 } as const;
let bulkBodies = 0;
/**
 * A bulk create body of BULK.links links whose URLs no other body of this run has: a URL sent
 * twice would be answered as the link it already is (create-or-return), not stored again.
 */
const bulkBody = () => {
  const at = bulkBodies++;
  return JSON.stringify({ urls: Array.from({ length: BULK.links }, (_, i) => ({ url: `https://example.com/bulk/${process.pid}/${at}/${i}` })) });
};

/** Every scenario, in table order. */
export function scenarios(root: string, hotLinks = HOT_LINKS): Scenario[] {
  const p = seededPaths(root);
  const page = (n: number) => n + 1;
  const create = (n: number): Scenario => ({
    id: `create-${n / 1000}k`,
    label: `POST /api/qr/add (durable)`,
    records: n,
    server: `create-${n / 1000}k`,
    freshFrom: p.create(n),
    load: { method: 'POST', path: '/api/qr/add', headers: { ...AUTH, ...JSON_TYPE }, body: NEW_QR, expect: 200 },
  });
  // Each variant comes from its own public address (X-Forwarded-For), so every click is located.
  const from = (n: number) => ({ 'x-forwarded-for': visitors[n % visitors.length]! });
  // The same visitors with the country a CDN would have told (the one the bundled database gives).
  const fromCdn = (n: number) => {
    const country = countryOf(visitors[n % visitors.length]!);
    return { ...from(n), ...(country ? { 'cf-ipcountry': country } : {}) };
  };
  const withHeader = (s: Scenario): Load => ({ ...s.load, vary: (n) => ({ ...s.load.vary!(n), headers: fromCdn(n) }) });
  const redirect: Scenario = {
    id: 'redirect',
    label: 'GET /<alias> (click recorded)',
    records: SIZES.links,
    server: 'links',
    load: { method: 'GET', path: '/', headers: { 'user-agent': BROWSER }, variants: hotLinks, vary: (n) => ({ path: `/${linkAlias(((n * 7919) % SIZES.links) + 1)}`, headers: from(n) }), expect: 302 },
  };
  const event: Scenario = {
    id: 'event',
    label: 'POST /api/event',
    records: 1,
    server: 'event',
    load: {
      method: 'POST',
      path: '/api/event',
      headers: { 'user-agent': BROWSER, 'content-type': 'text/plain' },
      variants: 2000,
      vary: (n) => ({ body: JSON.stringify({ page: `https://${BENCH_SITE}/p/${n % 50}`, referrer: 'https://www.google.com/', screen_resolution: '1920x1080' }), headers: from(n) }),
      expect: 202,
    },
  };
  const files: Scenario[] = [
    { id: 'baseline', label: 'baseline node:http JSON', records: 0, server: 'baseline', load: { method: 'GET', path: '/', variants: PAGES, vary: (n) => ({ path: `/?page=${page(n)}` }), expect: 200 } },
    // Not a target: the bare server answering a list page of the same shape, serialised per request.
    { id: 'baseline-list', label: 'baseline node:http, 25-entry list', records: 0, server: 'baseline', load: { method: 'GET', path: '/list', variants: PAGES, vary: (n) => ({ path: `/list?page=${page(n)}` }), expect: 200 } },
    // Not a target: the same server's cheapest route, to show what the framework and middleware cost alone.
    { id: 'health', label: 'GET /health (framework floor)', records: SIZES.list, server: 'list', load: { method: 'GET', path: '/health', variants: PAGES, vary: (n) => ({ path: `/health?page=${page(n)}` }), expect: 200 } },
    {
      id: 'list',
      label: 'GET /api/qr?limit=25&page=N',
      records: SIZES.list,
      server: 'list',
      load: { method: 'GET', path: '/api/qr', headers: AUTH, variants: PAGES, vary: (n) => ({ path: `/api/qr?limit=25&page=${page(n)}` }), expect: 200 },
    },
    {
      id: 'json-server-list',
      label: 'json-server GET /qrs?_page=N',
      records: SIZES.list,
      server: 'json-server-list',
      load: { method: 'GET', path: '/qrs', variants: PAGES, vary: (n) => ({ path: `/qrs?_page=${page(n)}&_per_page=25` }), expect: 200 },
    },
    ...SIZES.create.map(create),
    {
      id: 'bulk-create',
      label: `POST /api/url/bulk (${BULK.links.toLocaleString('en')} links, durable)`,
      records: SIZES.create[0],
      server: 'bulk-create',
      freshFrom: p.create(SIZES.create[0]),
      perRequest: BULK.links,
      connections: BULK.connections,
      load: { method: 'POST', path: '/api/url/bulk', headers: { ...AUTH, ...JSON_TYPE }, variants: BULK.variants, vary: () => ({ body: bulkBody() }), expect: 200 },
    },
    {
      id: 'json-server-create',
      label: 'json-server POST /qrs',
      records: SIZES.list,
      server: 'json-server-create',
      freshFrom: p.jsonServerDb,
      load: { method: 'POST', path: '/qrs', headers: JSON_TYPE, body: JSON.stringify({ userId: 1, ...JSON.parse(NEW_QR) }), expect: 201 },
    },
    // With geolocation; the same visitors with GEOIP=off and a CDN's country header (the same
    // counts written: the difference is the lookup); and with GEOIP=off and no header (every
    // country Unknown, fewer labels to write: today's server without a CDN, for context).
    redirect,
    { ...redirect, id: 'redirect-header', label: `${redirect.label}, GEOIP=off, CDN header`, server: 'links-header', load: withHeader(redirect) },
    { ...redirect, id: 'redirect-nogeo', label: `${redirect.label}, GEOIP=off, no header`, server: 'links-nogeo' },
    event,
    { ...event, id: 'event-header', label: `${event.label}, GEOIP=off, CDN header`, server: 'event-header', load: withHeader(event) },
    { ...event, id: 'event-nogeo', label: `${event.label}, GEOIP=off, no header`, server: 'event-nogeo' },
    // The event path without its rate limit (EVENT_RATE_LIMIT=0): what the limiter costs, apart from the rest.
    { ...event, id: 'event-off', label: `${event.label}, EVENT_RATE_LIMIT=0 (limiter off)`, server: 'event-off' },
  ];
  return [...files, ...postgresScenarios(files)];
}

/** Workers of the WORKERS=N PostgreSQL rows: one per core. */
export const PG_WORKERS = availableParallelism();

/** The PostgreSQL servers' schemas, one per server, named after this run so that parallel runs never share one. */
export function pgSchemas(): Record<string, string> {
  const tag = `bench_${process.pid}`;
  return {
    'pg-list': `${tag}_list`, 'pg-links': `${tag}_links`, 'pg-event': `${tag}_event`, 'pg-create': `${tag}_create`, 'pg-bulk': `${tag}_bulk`,
    // The WORKERS=N servers: schemas of their own, seeded alike, so neither run sees the other's rows.
    'pg-list-w': `${tag}_list_w`, 'pg-links-w': `${tag}_links_w`, 'pg-event-w': `${tag}_event_w`, 'pg-create-w': `${tag}_create_w`,
    // The list with the limiter off (RATE_LIMIT=0), against the limiter counting in PostgreSQL.
    'pg-list-off': `${tag}_list_off`, 'pg-list-off-w': `${tag}_list_off_w`, 'pg-event-off': `${tag}_event_off`,
  };
}

/**
 * The same loads on the PostgreSQL backend (issue 14), in the same rounds as the file store's.
 * Its create server is not restarted from a fresh copy each round (a table does not slow down as a
 * JSON file does): its rows grow through the run, as the Records column shows.
 */
function postgresScenarios(files: readonly Scenario[]): Scenario[] {
  const file = (id: string) => files.find((s) => s.id === id)!;
  const pg = (id: string, server: string, records: number): Scenario => ({ ...file(id), id: `pg-${id}`, label: `PostgreSQL ${file(id).label}`, server, records, freshFrom: undefined });
  // The same loads on WORKERS=<cores> (issue 15): one port, a worker per core.
  const many = (s: Scenario): Scenario => ({ ...s, id: `${s.id}-w${PG_WORKERS}`, label: s.label.replace('PostgreSQL', `PostgreSQL, ${PG_WORKERS} workers,`), server: `${s.server}-w` });
  const one = [pg('list', 'pg-list', SIZES.list), pg('redirect', 'pg-links', SIZES.links), pg('event', 'pg-event', 1)];
  // What the rate limit costs a list request: the same load with the limiter off, one process and WORKERS=<cores>.
  const off: Scenario = { ...one[0]!, id: 'pg-list-off', label: `${one[0]!.label}, RATE_LIMIT=0 (limiter off)`, server: 'pg-list-off' };
  const eventOff: Scenario = { ...one[2]!, id: 'pg-event-off', label: `${one[2]!.label}, EVENT_RATE_LIMIT=0 (limiter off)`, server: 'pg-event-off' };
  const create = pg('create-10k', 'pg-create', 10_000);
  return [one[0]!, off, create, pg('bulk-create', 'pg-bulk', 0), ...one.slice(1), eventOff, ...one.map(many), many(off), many(create)];
}

/** How to start the server a scenario names, given the directory (or file) it serves. */
export function serverSpec(server: string, data: string, nodeArgs: string[], logLevel: string, checkout?: string): ProcSpec {
  if (server === 'baseline') return { ...baselineSpec(), args: [...nodeArgs, ...baselineSpec().args] };
  if (server.startsWith('json-server')) {
    const spec = jsonServerSpec(server, data);
    return { ...spec, args: [...nodeArgs, ...spec.args] };
  }
  if (server.startsWith('pg-')) {
    const limiter: Record<string, string> = server.startsWith('pg-list-off') ? { RATE_LIMIT: '0' } : server === 'pg-event-off' ? { EVENT_RATE_LIMIT: '0' } : {};
    return appSpec(server, '', { nodeArgs, env: { LOG_LEVEL: logLevel, DATABASE_URL: PG_URL, DATABASE_SCHEMA: data, WORKERS: server.endsWith('-w') ? String(PG_WORKERS) : '1', ...limiter } });
  }
  // The twins of the redirect and event rows without geolocation: the country header only, as before it.
  const spec = appSpec(server, data, { nodeArgs, env: { LOG_LEVEL: logLevel, ...(/-(nogeo|header)$/.test(ownServer(server)) ? { GEOIP: 'off' } : {}), ...(ownServer(server) === 'event-off' ? { EVENT_RATE_LIMIT: '0' } : {}) } });
  // The other build of `--compare`: the same settings, its own dist/main.js.
  return checkout && isOther(server) ? { ...spec, args: [...nodeArgs, otherMain(checkout), 'serve'] } : spec;
}

/** The data a long-lived server serves: a directory, a file, or a PostgreSQL schema. */
export function serverData(server: string, root: string): string {
  const p = seededPaths(root);
  const map: Record<string, string> = { baseline: '', list: p.list, links: p.links, event: p.event, 'links-nogeo': p.linksNoGeo, 'event-nogeo': p.eventNoGeo, 'links-header': p.linksHeader, 'event-header': p.eventHeader, 'event-off': p.eventOff, 'json-server-list': p.jsonServerDb, ...pgSchemas() };
  return map[ownServer(server)] ?? '';
}
