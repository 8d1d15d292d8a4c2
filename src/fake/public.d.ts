/**
 * The public types of `shortlink-analytics-server/fake`, self-contained so that a TypeScript
 * consumer's compiler never reads this package's sources. test/fake-package.test.ts checks that
 * src/fake/index.ts still satisfies them.
 */
import type { Hono } from 'hono';

/** A stored record: an integer id, an optional owner, plain JSON fields. */
export interface StoredRecord {
  id: number;
  userId?: number;
  [field: string]: unknown;
}

/** Fixtures: `{ "<collection>": [records...] }`, the shape of the data directory; keys starting with `$` are ignored. */
export type Fixtures = Record<string, unknown>;

/** How many records of each collection a seed stored. */
export type SeedCounts = Record<string, number>;

/** Raised when fixtures are invalid; the message lists the problems. */
export declare class FixtureError extends Error {}

/** The admin key of a fake started without `users` (its admin is admin@localhost). */
export declare const FAKE_ADMIN_KEY: string;

/** Where a fake's clock stands until moved: 2026-01-01T00:00:00Z. */
export declare const FAKE_NOW: string;

/** A user of the fake, with its plain API key. */
export interface FakeUser {
  email: string;
  apikey: string;
  username?: string;
  admin?: boolean;
  password?: string;
  id?: number;
  /** Scoped keys of the user beside `apikey`, each refused (403) where its scopes do not reach. */
  keys?: FakeKey[];
}

/** A scoped API key of a fake user, with its plain key (stored hashed). */
export interface FakeKey {
  apikey: string;
  /** What it may do: `links:read`, `qr:*`, `*`… (see GET /docs). */
  scopes: string[];
  name?: string;
  /** `YYYY-MM-DD HH:MM:SS` UTC, on the fake's clock; default: never. */
  expires?: string;
  /** Addresses or CIDR ranges it may be used from (the fake's clients come from 127.0.0.1). */
  ips?: string[];
}

/** Rate limits per window; an absent limit is off. */
export interface FakeRateLimits {
  link?: number;
  analytics?: number;
  events?: number;
  authFailures?: number;
  passwordAttempts?: number;
  passwordAttemptsPerLink?: number;
  windowSeconds?: number;
}

/** A leveled logger. */
export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
  /** Whether lines at `level` are written. */
  enabled(level: 'debug' | 'info' | 'warn' | 'error' | 'silent'): boolean;
}

/** Settings a fake may override (see docs/configuration.md). */
export interface FakeConfig {
  baseUrl: string;
  redirectStatus: number;
  openRegistration: boolean;
  bodyLimit: number;
  /** false, a number of trusted proxy hops (true is one), or the trusted proxies' IPs/CIDRs (see TRUST_PROXY). */
  trustProxy: boolean | number | readonly string[];
  countryHeader: string;
  /** Countries from the IP address (the bundled database), as GEOIP; off: the country header only. */
  geoip: boolean;
  /** A MaxMind-format City database for region and city, as GEOIP_DATABASE. */
  geoipDatabase: string | undefined;
  logoFetch: boolean;
  /** Days of statistics kept before today (STATS_RETENTION_DAYS; default 0: for ever). Moving the clock applies it. */
  statsRetentionDays: number;
  /** Days of hourly statistics kept before today (STATS_HOURLY_DAYS; default 90, 0: for ever). */
  statsHourlyDays: number;
}

/** How to start a fake; everything is optional. */
export interface FakeServerOptions {
  users?: FakeUser[];
  fixtures?: Fixtures | string;
  now?: string | number;
  seed?: string | number;
  rateLimit?: FakeRateLimits | false;
  baseUrl?: string;
  config?: Partial<FakeConfig>;
  log?: Logger;
}

/** What a test may read from the fake's in-memory store. */
export interface FakeStore {
  get(collection: string, id: number): StoredRecord | undefined;
  all(collection: string): StoredRecord[];
  owned(collection: string, userId: number): StoredRecord[];
  count(collection: string): number;
}

/** A running fake. */
export interface FakeServer {
  url: string;
  port: number;
  /** The Hono app: `await fake.app.request('/api/urls', { headers })` needs no socket. */
  app: Hono<any>; // eslint-style escape: the app's own environment type is internal
  store: FakeStore;
  config: FakeConfig;
  reset(): Promise<void>;
  seed(fixtures: Fixtures | string): Promise<SeedCounts>;
  /** The fake's clock: it stands still until set or advanced. Moving it runs statistics retention for the new time (requests wait for it), the realtime view reads it, and the webhook retries it makes due go at once. */
  clock: { now(): number; set(at: string | number): void; advance(ms: number): void };
  /** Sends every webhook delivery due now (events of writes made so far included) and resolves once each attempt ended. */
  deliverWebhooks(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fake backend on a free loopback port, in memory, in test mode. */
export declare function startFakeServer(options?: FakeServerOptions): Promise<FakeServer>;
