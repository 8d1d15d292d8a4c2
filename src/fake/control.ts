import { Hono } from 'hono';
import { createApp } from '../app.ts';
import type { Config } from '../config.ts';
import type { AppEnv } from '../http/app-env.ts';
import type { Logger } from '../log.ts';
import type { Resource } from '../resources/define.ts';
import type { Fixtures } from '../fixtures/prepare.ts';
import type { RawFixtures } from '../fixtures/read.ts';
import { seedFixtures } from '../fixtures/seed.ts';
import type { SeedCounts } from '../fixtures/seed.ts';
import { DailyCounters } from '../stats/daily-counters.ts';
import type { Store, StoredRecord } from '../store/store.ts';
import { adminRoutes } from '../routes/test-admin.ts';
import type { ClockState } from '../routes/test-admin.ts';
import type { ResettableRandom, TestClock } from './test-clock.ts';
import type { MakeLimiter } from '../http/rate-limit.ts';
import type { Geolocator } from '../geo/geolocator.ts';
import type { StatsRetention } from '../stats/retention.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { KeyUses } from '../auth/key-uses.ts';
import { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import type { EventStreams } from '../events/event-streams.ts';

/** What a test-mode app is built from: the app's parts, with a movable clock and a rewindable random source. */
export interface TestParts {
  store: Store;
  config: Config;
  log: Logger;
  resources: readonly Resource[];
  clock: TestClock;
  random: ResettableRandom;
  /** Where rate limits count (default: memory). */
  limits?: MakeLimiter;
  /** Where visitors are (default: the bundled countries, per the config). */
  geo?: Geolocator;
  /** Statistics retention, run again whenever the clock is moved. */
  retention?: StatsRetention;
  /** The audit buffer and key uses, kept across rebuilds (a new one per rebuild would stay registered with the store). */
  audit?: AuditLog;
  keyUses?: KeyUses;
  /** The webhook deliveries (default: new ones on the store, driven by the movable clock). */
  webhooks?: WebhookDispatcher;
  streams?: EventStreams;
}

/** Every record of every collection, copied: the state a reset goes back to. */
export async function snapshotStore(store: Store, resources: readonly Resource[]): Promise<Fixtures> {
  const out: Fixtures = {};
  for (const c of new Set(resources.map((r) => r.collection))) {
    const records: StoredRecord[] = [];
    for await (const batch of store.scan(c)) records.push(...structuredClone(batch));
    out[c] = records;
  }
  return out;
}

/**
 * Test mode: the app behind a thin front that adds `/__admin/*` and forwards everything else.
 * A reset puts back the data the control started with, rewinds the clock and the random source,
 * and builds the app afresh, so rate-limit windows, today's visitors and buffered counts start
 * over too: the same requests after a reset give the same answers, aliases and ids included.
 */
export class TestControl {
  /** The app to serve or to call with `app.request()`. */
  readonly app: Hono<AppEnv>;
  private inner: Hono<AppEnv>;
  // One counter buffer for the control's life: a new one per rebuild would stay registered with the store.
  private readonly counters: DailyCounters;
  /** One dispatcher for the control's life too, driven by its clock: a moved clock makes retries due. */
  readonly webhooks: WebhookDispatcher;
  private readonly initial: Fixtures;
  /** The retention run the last clock move started: requests wait for it, so they read what the clock's time keeps. */
  private pruning: Promise<unknown> = Promise.resolve();

  /** A control over the store's current content, which resets go back to. */
  static async create(parts: TestParts): Promise<TestControl> {
    const control = new TestControl(parts, await snapshotStore(parts.store, parts.resources));
    await control.counters.ready();
    return control;
  }

  private constructor(
    private readonly parts: TestParts,
    initial: Fixtures,
  ) {
    parts.log.warn('TEST_MODE is on: POST /__admin/reset, /__admin/seed, /__admin/clock and /__admin/webhooks/deliver are enabled; never use it in production');
    this.initial = initial;
    this.counters = new DailyCounters(parts.store, { clock: parts.clock, random: parts.random, log: parts.log });
    this.webhooks = parts.webhooks ?? new WebhookDispatcher({ store: parts.store, config: parts.config, clock: parts.clock, log: parts.log });
    this.inner = this.build();
    this.app = new Hono<AppEnv>();
    this.app.route('/', adminRoutes(this, parts.store, parts.log));
    this.app.all('*', async (c) => {
      await this.pruning;
      return this.inner.fetch(c.req.raw, c.env);
    });
  }

  private build(): Hono<AppEnv> {
    return createApp({ ...this.parts, counters: this.counters, webhooks: this.webhooks });
  }

  /** Sends every webhook delivery due now (new events included, the clicks buffered so far too) and resolves once each attempt ended. */
  async deliverWebhooks(): Promise<void> {
    await this.counters.flush();
    await this.webhooks.drain();
  }

  /** Back to the start: the initial records, clock and random source, and a fresh app. */
  async reset(): Promise<void> {
    this.counters.discard();
    this.parts.audit?.discard();
    this.parts.keyUses?.discard();
    this.parts.random.reset();
    this.parts.clock.reset();
    await this.parts.store.replaceAll(structuredClone(this.initial));
    this.inner = this.build();
  }

  /** Adds fixtures to the current data (a record replaces the one with its id); see src/fixtures. */
  async seed(fixtures: RawFixtures): Promise<SeedCounts> {
    // Counts buffered for records the fixtures replace must not be written over them later.
    await this.counters.flush();
    await this.parts.audit?.flush();
    return seedFixtures(this.parts.store, fixtures, { resources: this.parts.resources, now: this.parts.clock.now() });
  }

  /**
   * Runs statistics retention for the clock's new time (the days it no longer keeps go), after
   * writing what the counters buffer (retention acts on what is stored), and sends the webhook
   * retries the new time makes due; resolves when the retention is done.
   */
  async clockMoved(): Promise<void> {
    // Webhook deliveries due by the new time go at once.
    this.webhooks.kick();
    const retention = this.parts.retention;
    if (!retention) return;
    this.pruning = this.counters.flush().then(() => retention.run());
    await this.pruning;
  }

  /** The clock. */
  get clock(): TestClock {
    return this.parts.clock;
  }

  /** The clock's time and mode. */
  clockState(): ClockState {
    const ms = this.parts.clock.now();
    return { now: new Date(ms).toISOString(), ms, frozen: this.parts.clock.frozen };
  }
}
