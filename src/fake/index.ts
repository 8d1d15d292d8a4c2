/**
 * The fake backend: this server, in memory on a loopback port, for other projects' tests.
 * See ./README.md for a complete node:test example.
 */
import type { Hono } from 'hono';
import { API_KEYS } from '../auth/api-key-record.ts';
import { loadConfig } from '../config.ts';
import type { Config } from '../config.ts';
import type { RawFixtures } from '../fixtures/read.ts';
import { readFixtures } from '../fixtures/read.ts';
import type { SeedCounts } from '../fixtures/seed.ts';
import type { AppEnv } from '../http/app-env.ts';
import type { Logger } from '../log.ts';
import { silentLogger } from '../log.ts';
import { startServer } from '../server.ts';
import type { FileStore } from '../store/file/file-store.ts';
import { resettableRandom, testClock } from './test-clock.ts';

export type { RawFixtures as Fixtures } from '../fixtures/read.ts';
export type { SeedCounts } from '../fixtures/seed.ts';
export { FixtureError } from '../fixtures/read.ts';

/** The admin key of a fake started without `users` (its admin is admin@localhost). */
export const FAKE_ADMIN_KEY = 'sk_fake_admin_key_0000000000000000000000000';

/** Where a fake's clock stands until moved. */
export const FAKE_NOW = '2026-01-01T00:00:00Z';

/** A user of the fake, with its plain API key (stored hashed, as the server always does). */
export interface FakeUser {
  email: string;
  apikey: string;
  username?: string;
  admin?: boolean;
  password?: string;
  /** Default: the next free user id, in the order given. */
  id?: number;
  /** Scoped keys of the user beside `apikey` (POST /api/keys makes them too): each refused where its scopes do not reach. */
  keys?: FakeKey[];
}

/** A scoped API key of a fake user, with its plain key (stored hashed). */
export interface FakeKey {
  apikey: string;
  /** What it may do: `links:read`, `qr:*`, `*`… (see GET /docs). */
  scopes: string[];
  /** Default: the scopes joined. */
  name?: string;
  /** `YYYY-MM-DD HH:MM:SS` UTC, on the fake's clock; default: never. */
  expires?: string;
  /** Addresses or CIDR ranges it may be used from (the fake's clients come from 127.0.0.1); default: anywhere. */
  ips?: string[];
}

/** Rate limits of the fake, per window; an absent limit is off. */
export interface FakeRateLimits {
  /** Requests per user (all of its keys together) on the link-management API. */
  link?: number;
  /** Requests per user (all of its keys together) on the analytics API. */
  analytics?: number;
  /** Tracking events per client IP on POST /api/event. */
  events?: number;
  /** Failed authentications per client IP before 429. */
  authFailures?: number;
  /** Wrong passwords per client IP (protected links, stats pages) before 429. */
  passwordAttempts?: number;
  /** Wrong passwords per protected link or stats page, all clients together, before 429. */
  passwordAttemptsPerLink?: number;
  /** Window length, seconds (default 60); the fake's clock decides when a window ends. */
  windowSeconds?: number;
}

/** How to start a fake. Everything is optional. */
export interface FakeServerOptions {
  /** The users and their keys; default: one admin, admin@localhost, with FAKE_ADMIN_KEY. */
  users?: FakeUser[];
  /** Initial data, `{ "<collection>": [records...] }` (the data directory's shape), or a path to a fixtures file or directory. */
  fixtures?: RawFixtures | string;
  /** Where the clock stands (ISO date or epoch ms); it moves only when told. Default FAKE_NOW. */
  now?: string | number;
  /** Seed of the random source: the same seed gives the same aliases. Default 'fake'. */
  seed?: string | number;
  /** Rate limits; default: all off. */
  rateLimit?: FakeRateLimits | false;
  /** Public origin of the short URLs; default http://localhost:<port>. */
  baseUrl?: string;
  /** Any other setting (see src/config.ts). */
  config?: Partial<Config>;
  /** Default: silent. */
  log?: Logger;
}

/** What a test may read from the fake's in-memory store. */
export type FakeStore = ReturnType<FileStore['peekView']>;

/** A running fake. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The Hono app, for `app.request(path, init)` without a socket. */
  app: Hono<AppEnv>;
  /** The in-memory store, to inspect what was stored: synchronous reads (the fake is always in memory). */
  store: FakeStore;
  config: Config;
  /** Back to the initial users, fixtures, clock and random source (the same aliases and ids come out again). */
  reset(): Promise<void>;
  /** Adds fixtures (an object or a path) to the current data; a record replaces the one with its id. */
  seed(fixtures: RawFixtures | string): Promise<SeedCounts>;
  /** The fake's clock: it stands still until set or advanced; moving it makes the webhook retries it passes due at once. */
  clock: { now(): number; set(at: string | number): void; advance(ms: number): void };
  /** Sends every webhook delivery due now (events of writes made so far included) and resolves once each attempt ended. */
  deliverWebhooks(): Promise<void>;
  /** Stops the server. */
  close(): Promise<void>;
}

function usersOf(fixtures: RawFixtures, users: readonly FakeUser[]): RawFixtures {
  if (users.length === 0) return fixtures;
  const given = Array.isArray(fixtures.users) ? (fixtures.users as { id?: unknown }[]) : [];
  let next = Math.max(0, ...given.map((u) => (typeof u.id === 'number' ? u.id : 0)), ...users.map((u) => u.id ?? 0)) + 1;
  const placed = users.map(({ keys, ...u }) => ({ user: { ...u, id: u.id ?? next++ }, keys: keys ?? [] }));
  const givenKeys = Array.isArray(fixtures[API_KEYS]) ? (fixtures[API_KEYS] as { id?: unknown }[]) : [];
  let nextKey = Math.max(0, ...givenKeys.map((k) => (typeof k.id === 'number' ? k.id : 0))) + 1;
  const keys = placed.flatMap(({ user, keys: own }) => own.map((k) => ({ name: k.scopes.join(' '), ...k, id: nextKey++, userId: user.id })));
  return { ...fixtures, users: [...given, ...placed.map((p) => p.user)], ...(keys.length > 0 ? { [API_KEYS]: [...givenKeys, ...keys] } : {}) };
}

function limitsOf(limits: FakeRateLimits | false | undefined): Partial<Config> {
  const l = limits || {};
  const windowSeconds = l.windowSeconds ?? 60;
  return {
    rateLimit: l.link ?? 0,
    analyticsRateLimit: l.analytics ?? 0,
    eventRateLimit: l.events ?? 0,
    authFailureLimit: l.authFailures ?? 0,
    passwordAttemptLimit: l.passwordAttempts ?? 0,
    passwordAttemptLinkLimit: l.passwordAttemptsPerLink ?? 0,
    rateLimitWindow: windowSeconds,
    passwordAttemptWindow: windowSeconds,
  };
}

/** Starts the fake backend on a free loopback port, in memory, in test mode. */
export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const raw = typeof options.fixtures === 'string' ? await readFixtures(options.fixtures) : (options.fixtures ?? {});
  const base = loadConfig({ DATA_DIR: ':memory:', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', LOGO_FETCH: 'off', ADMIN_API_KEY: FAKE_ADMIN_KEY, TEST_MODE: 'on' });
  const config: Config = { ...base, ...limitsOf(options.rateLimit), ...options.config, testMode: true, seed: undefined };
  if (options.baseUrl !== undefined) Object.assign(config, { baseUrl: loadConfig({ BASE_URL: options.baseUrl }).baseUrl, baseUrlExplicit: true });
  const clock = testClock(options.now ?? FAKE_NOW);
  const random = resettableRandom(options.seed ?? 'fake');
  const running = await startServer(config, { log: options.log ?? silentLogger, clock, random, fixtures: usersOf(raw, options.users ?? []), print: () => {} });
  const control = running.testControl!;
  return {
    url: running.url,
    port: running.port,
    app: running.app,
    store: (running.store as FileStore).peekView(),
    config: running.config,
    reset: () => control.reset(),
    seed: async (fixtures) => control.seed(typeof fixtures === 'string' ? await readFixtures(fixtures) : fixtures),
    // Moving the clock runs statistics retention for the new time; the fake's requests wait for it.
    clock: {
      now: () => clock.now(),
      set: (at) => {
        clock.set(at);
        void control.clockMoved();
      },
      advance: (ms) => {
        clock.advance(ms);
        void control.clockMoved();
      },
    },
    deliverWebhooks: () => control.deliverWebhooks(),
    close: () => running.close(),
  };
}
