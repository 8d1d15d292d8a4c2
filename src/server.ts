import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { createApp } from './app.ts';
import { cookieSecret } from './auth/cookie-secret.ts';
import { KeyUses } from './auth/key-uses.ts';
import { AuditLog } from './audit/audit-log.ts';
import { ensureAdmin } from './bootstrap.ts';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { TestControl } from './fake/control.ts';
import { testModeParts } from './fake/test-mode.ts';
import type { RawFixtures } from './fixtures/read.ts';
import { seedOnStart } from './fixtures/seed.ts';
import { DailyCounters } from './stats/daily-counters.ts';
import { StatsRetention } from './stats/retention.ts';
import { withAccessLog } from './http/access-log.ts';
import { withErrorGuard } from './http/error-guard.ts';
import { guardConnections } from './http/connection-guard.ts';
import { connectionCap, openFileLimit, reservedDescriptors } from './http/descriptor-limit.ts';
import { isTrustedPeer } from './http/trust-proxy.ts';
import { storeReadiness } from './http/ready-route.ts';
import type { AppEnv } from './http/app-env.ts';
import type { Logger } from './log.ts';
import type { RandomSource } from './random.ts';
import { cryptoRandom } from './random.ts';
import type { Resource } from './resources/define.ts';
import { RESOURCES, storeSchema } from './resources/table.ts';
import { openStore, storeLabel } from './store/open.ts';
import { startRateLimits } from './limits/start-limits.ts';
import type { RateLimits } from './limits/start-limits.ts';
import { openGeolocator } from './geo/geolocator.ts';
import type { Store } from './store/store.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { EventStreams } from './events/event-streams.ts';

/** How often a server looks for due import jobs beside those its own requests queue, ms. */
const IMPORT_POLL_MS = 2000;

/** A server that is listening. */
export interface RunningServer {
  url: string;
  port: number;
  app: Hono<AppEnv>;
  store: Store;
  config: Config;
  /** Reset, seed and clock of a TEST_MODE server (absent otherwise). */
  testControl?: TestControl;
  /** Stops accepting, finishes in-flight requests, flushes the store and releases the data directory. */
  close(): Promise<void>;
}

/** What a start may be given beyond the configuration. */
export interface StartOptions {
  log: Logger;
  clock?: Clock;
  random?: RandomSource;
  resources?: readonly Resource[];
  /** Where the generated admin key is printed, once. */
  print?: (line: string) => void;
  /** Fixtures loaded into an empty store (the fake backend, the demo); see seedOnStart for the admin. */
  fixtures?: RawFixtures;
  /** A worker of a cluster: the primary checked the port already, and listens for it. */
  worker?: boolean;
}

/** The port or interface cannot be listened on; its message is one line saying what to do. */
export class ListenError extends Error {
  override name = 'ListenError';
}

/** Opens the store, creates the admin on a first start, and listens. */
export async function startServer(configIn: Config, options: StartOptions): Promise<RunningServer> {
  const config = { ...configIn };
  // Before the store: a busy port must not cost a long load, nor create (and print) an admin key.
  if (config.port !== 0 && !options.worker) await probePort(config);
  const resources = options.resources ?? RESOURCES;
  const test = config.testMode ? testModeParts(options.clock, options.random) : null;
  const clock = test?.clock ?? options.clock ?? systemClock;
  // Before the store: a City database that cannot be used stops the start with nothing opened or created.
  const geo = openGeolocator(config, options.log);
  let store: Store;
  try {
    store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, databasePool: config.databasePool, databaseSchema: config.databaseSchema, databaseTimeout: config.databaseTimeout, databaseReadUrls: config.databaseReadUrl, databaseReadMaxLag: config.databaseReadMaxLag, collections: storeSchema(resources), snapshotEvery: config.snapshotEvery, snapshotBytes: config.snapshotBytes, log: options.log });
  } catch (err) {
    geo.close();
    throw err;
  }
  // Services of this process beside the store: started after it, stopped before it.
  let limits: RateLimits | null = null;
  try {
    limits = await startRateLimits(config, store, clock, options.log);
    const generated = await seedOnStart(store, { file: config.seed, fixtures: options.fixtures, resources, clock, log: options.log }, () => ensureAdmin(store, clock, config.adminApiKey));
    // The key is kept only as a hash: this line is the one chance to copy it.
    if (generated) (options.print ?? console.log)(`Admin API key: ${generated}  (shown once: keep it now; users:rotate-key --email admin@localhost makes a new one)`);
    const readiness = storeReadiness(store, config, limits.checks);
    // One audit buffer and one record of key uses for the process, whatever app it serves (test mode rebuilds its app).
    const audit = new AuditLog(store, { clock, log: options.log, retentionDays: config.auditRetentionDays });
    audit.startPruning();
    const keyUses = new KeyUses(store, clock, options.log);
    // Webhook deliveries and event streams belong to the process: started after the store, stopped before it.
    const webhooks = new WebhookDispatcher({ store, config, clock, log: options.log });
    const streams = new EventStreams(store, { perUser: config.eventStreamsPerUser, databaseMs: Math.round(config.databaseTimeout * 1000) });
    const parts = { store, config, clock, random: options.random, log: options.log, resources, secret: await cookieSecret(store), limits: limits.make, readiness, audit, keyUses, webhooks, streams, geo };
    // Off the request path: soon after the start, then once a day; stopped before the store closes.
    const retention = new StatsRetention(store, clock, config, options.log);
    store.beforeClose(() => retention.stop());
    const testControl = test ? await TestControl.create({ ...parts, ...test, retention }) : undefined;
    let app = testControl?.app;
    if (!app) {
      // Today's visitor ledger is taken up before the first visit can count anyone afresh.
      const counters = new DailyCounters(store, { clock, random: options.random ?? cryptoRandom, log: options.log });
      await counters.ready();
      // Import jobs a process left running when it died are taken up here (test mode runs those queued meanwhile only).
      app = createApp({ ...parts, counters, importPollMs: IMPORT_POLL_MS });
    }
    const server = await listen(app, config, options.log);
    retention.start();
    webhooks.start();
    const port = (server.address() as AddressInfo).port;
    if (!config.baseUrlExplicit) config.baseUrl = `http://localhost:${port}`;
    const url = localUrl(config.host, port);
    options.log.info(`listening on ${url}${allInterfaces(config.host) ? ' (all interfaces)' : ''}; docs: ${docsUrl(config, url)} (data: ${storeLabel(config)}; rate limits: ${limits.label})`);
    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        // Open event streams would keep server.close() waiting for ever; each ends within a poll,
        // and its connection, idle then, is closed at the next look rather than at its keep-alive timeout.
        streams.close();
        await new Promise<void>((resolve) => {
          const idle = setInterval(() => server.closeIdleConnections(), 100);
          server.close(() => {
            clearInterval(idle);
            resolve();
          });
          server.closeIdleConnections();
        });
        await webhooks.stop();
        await limits?.close();
        geo.close();
        await store.close();
      })());
    return { url, port, app, store, config, testControl, close };
  } catch (err) {
    await limits?.close();
    geo.close();
    await store.close();
    throw err;
  }
}

const allInterfaces = (host: string) => host === '0.0.0.0' || host === '::';

/** The address a person on this machine opens for a server bound to `host` and the port it really got (PORT=0 picks one). */
export function localUrl(host: string, port: number): string {
  if (allInterfaces(host)) return `http://127.0.0.1:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Where the API docs page is: under BASE_URL when it was given (the public address), else at the local address. */
export function docsUrl(config: Pick<Config, 'baseUrl' | 'baseUrlExplicit'>, url: string): string {
  return `${config.baseUrlExplicit ? config.baseUrl : url}/docs`;
}

function listen(app: Hono<AppEnv>, config: Config, log: Logger): Promise<Server> {
  return new Promise((resolve, reject) => {
    // What @hono/node-server's serve() does, with the access log (when on) around the listener.
    const guarded = withErrorGuard(getRequestListener(app.fetch, { hostname: config.host }), log);
    // Test mode tells which process answered (the cluster tests count workers by it).
    const listener: typeof guarded = config.testMode ? (req, res) => (res.setHeader('X-Worker-Pid', String(process.pid)), guarded(req, res)) : guarded;
    const server = createServer(
      // The check of header and request timeouts runs every second, not Node's default 30.
      { headersTimeout: config.headersTimeout * 1000, requestTimeout: config.requestTimeout * 1000, keepAliveTimeout: config.keepAliveTimeout * 1000, connectionsCheckingInterval: 1000 },
      log.enabled('info') ? withAccessLog(listener, log) : listener,
    );
    const { cap, warning } = connectionCap(config.maxConnections, openFileLimit(), reservedDescriptors(config.databasePool));
    if (warning) log.warn(warning);
    const stopGuard = guardConnections(
      server,
      { maxConnections: cap, maxClientConnections: config.maxClientConnections, bodyGraceMs: config.headersTimeout * 1000, minBodyRate: config.minBodyRate },
      (address) => isTrustedPeer(address, config.trustProxy),
      log,
    );
    server.once('close', stopGuard);
    server.once('listening', () => resolve(server));
    server.once('error', (err) => reject(listenError(err, config)));
    server.listen(config.port, config.host);
  });
}

/** Binds the configured port and lets it go again, so that a start that cannot listen fails before it does anything. */
export function probePort(config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (err) => reject(listenError(err, config)));
    probe.listen(config.port, config.host, () => probe.close(() => resolve()));
  });
}

/** What a failed listen means for the person starting the server, as a ListenError; other errors as they are. */
export function listenError(err: Error & { code?: string }, config: Pick<Config, 'port' | 'host'>): Error {
  const on = config.host === '0.0.0.0' || config.host === '::' ? '' : ` on ${config.host}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return new ListenError(`Port ${config.port} is already in use${on}: stop the other server or set PORT (--port).`);
    case 'EACCES':
      return new ListenError(`Port ${config.port} needs privileges this user does not have: use a port above 1023 or set PORT (--port).`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenError(`HOST ${config.host} is not an address of this machine: set HOST (--host) to one of its addresses, or 0.0.0.0 for all.`);
    default:
      return err;
  }
}
