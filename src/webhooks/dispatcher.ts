import type { Clock } from '../clock.ts';
import { parseDateTime } from '../resources/fields.ts';
import type { Config } from '../config.ts';
import { eventBody } from '../events/event-types.ts';
import type { Logger } from '../log.ts';
import { wants } from '../resources/webhooks.ts';
import type { Webhook } from '../resources/webhooks.ts';
import { outsideStoreDeadline, withStoreDeadline } from '../store/deadline.ts';
import { DELIVERIES_COLLECTION } from '../store/store.ts';
import type { EventRecord, Store, Tx } from '../store/store.ts';
import { newDelivery } from './deliveries.ts';
import { recordRun } from './outcome.ts';
import type { RunEntry } from './outcome.ts';
import type { Delivery } from './deliveries.ts';
import { webhookSender } from './send.ts';
import type { AttemptResult, SendWebhook } from './send.ts';
import { signatureHeader } from './signature.ts';

/** How a dispatcher is built; all but store, config, clock and log have defaults. */
export interface DispatcherOptions {
  store: Store;
  config: Config;
  /** The server's clock: when deliveries are due and retried (the fake backend's moves them). */
  clock: Clock;
  log: Logger;
  /** How a delivery is sent (default: webhookSender with the settings). */
  send?: SendWebhook;
  /** Real time for the signatures' `t`, which receivers compare with their own clock (default Date.now, also under a fake clock). */
  wall?: () => number;
  /** How often it looks whether the outbox changed (memory only), ms. */
  pollMs?: number;
  /** How often it asks the store anyway (retries come due, other processes write), ms. */
  sweepMs?: number;
}

/** Events routed per transaction. */
const ROUTE_BATCH = 500;
/**
 * Deliveries of one queue claimed together (its head and those behind it), sent one after another
 * and their outcomes kept in one transaction: a backlog drains at the receiver's pace, not at one
 * claim and one commit per delivery. A run stops at its first failure (the rest wait, in order).
 */
const RUN = 100;
/** A run starts no attempt after this long (ms, or WEBHOOK_TIMEOUT if shorter): its lease must outlast its last attempt and the outcomes' write. */
const RUN_MS = 1000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Delivers the outbox to webhooks, off the request path, in every process: routes new events into
 * deliveries (one per event and subscribed webhook, in one transaction with the routing's progress),
 * claims the due ones (each queue's first with up to RUN behind it, sent one after another, so a
 * webhook gets its events in order; one process each: store.outbox), sends them signed, at most
 * WEBHOOK_CONCURRENCY queues at once, and records the outcomes:
 * delivered, retried with backoff, or failed after 24 hours, which turns the webhook off with the reason.
 * A delivery whose process died mid-way is taken up again when its lease runs out (at least once).
 */
export class WebhookDispatcher {
  private readonly send: SendWebhook;
  /** Closes the connections kept by the sender made here (none to close for one given). */
  private readonly closeSend: () => void;
  private readonly wall: () => number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  /** The last pass started: passes run one after another, never two at once. */
  private tail: Promise<unknown> = Promise.resolve();
  private kicked = false;
  /** Attempts started so far (drain compares it). */
  private attemptsStarted = 0;
  private seen = '';
  private sweptAt = 0;
  private prunedAt = 0;
  private stopped = false;

  constructor(private readonly options: DispatcherOptions) {
    const { config } = options;
    const own = options.send ? null : webhookSender({ timeoutMs: config.webhookTimeout * 1000, allowPrivate: config.webhookPrivateTargets });
    this.send = options.send ?? own!;
    this.closeSend = () => own?.close();
    this.wall = options.wall ?? Date.now;
    // Longer than any attempt can take (its timeout, and the outcome's write): a lease that ends means its process is gone.
    this.leaseMs = config.webhookTimeout * 2000 + 1000;
  }

  /** Starts looking for work every pollMs; stop() ends it. */
  start(): void {
    if (this.timer || this.stopped) return;
    const tick = () => {
      if (this.stopped) return;
      const changed = this.versions() !== this.seen;
      if (changed || Date.now() - this.sweptAt >= (this.options.sweepMs ?? 2000)) this.kick();
      this.timer = setTimeout(tick, this.options.pollMs ?? 250).unref();
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  /** Runs a pass soon (a new test event, a redelivery, a moved clock); kicks while one waits make no more. */
  kick(): void {
    if (this.stopped || this.kicked) return;
    this.kicked = true;
    void this.enqueue(() => {
      this.kicked = false;
      return this.pass();
    });
  }

  private enqueue(fn: () => Promise<number>): Promise<number> {
    const run = this.tail
      .then(() => outsideStoreDeadline(fn))
      .catch((err: unknown) => {
        this.options.log.error('webhook deliveries: a pass failed', { error: String(err) });
        return 0;
      });
    this.tail = run;
    return run;
  }

  /** Drops events and deliveries older than EVENT_RETENTION_DAYS by the server's clock (a pass does it hourly). */
  async prune(): Promise<void> {
    const { store, clock, config } = this.options;
    this.prunedAt = Date.now();
    const before = new Date(clock.now() - config.eventRetentionDays * 86_400_000).toISOString();
    await withStoreDeadline(config.databaseTimeout * 1000, () => store.outbox.prune(before));
  }

  /** Prunes, then routes and delivers until nothing is due now, waiting for every attempt (tests, the fake backend's flush). */
  async drain(): Promise<void> {
    await this.enqueue(async () => {
      await this.prune();
      return 0;
    });
    for (let i = 0; i < 100_000; i++) {
      const before = this.attemptsStarted;
      await this.enqueue(() => this.pass());
      // Attempts end and kick passes of their own, which may start more: wait until all is quiet.
      while (this.inFlight.size > 0 || this.kicked) {
        await Promise.all([...this.inFlight]);
        await this.tail;
      }
      // Done when nothing started since this pass began: it, and every pass after it, found nothing due.
      if (this.attemptsStarted === before) break;
    }
  }

  /** Stops looking for work, waits for the attempts under way (each ends by WEBHOOK_TIMEOUT), then closes the connections kept to receivers. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.tail;
    await Promise.all([...this.inFlight]);
    this.closeSend();
  }

  private versions(): string {
    const { store } = this.options;
    return `${store.version('events')}:${store.version(DELIVERIES_COLLECTION)}:${store.version('webhooks')}`;
  }

  /** One pass: route what is new, prune now and then, claim what is due; how many attempts it started. */
  private async pass(): Promise<number> {
    const { store, clock, config } = this.options;
    this.seen = this.versions();
    this.sweptAt = Date.now();
    const bounded = <R>(fn: () => Promise<R>) => withStoreDeadline(config.databaseTimeout * 1000, fn);
    if (Date.now() - this.prunedAt >= PRUNE_EVERY_MS) await this.prune();
    // Without a webhook there is nothing to route or send (and a webhook made later wants no older event).
    if ((await bounded(() => store.count('webhooks'))) === 0) return 0;
    while ((await bounded(() => store.outbox.route(ROUTE_BATCH, (tx, events) => this.fanOut(tx, events)))) === ROUTE_BATCH);
    const free = config.webhookConcurrency - this.inFlight.size;
    if (free <= 0 || this.stopped) return 0;
    const claimed = (await bounded(() => store.outbox.claimDeliveries(clock.now(), this.leaseMs, free, RUN))) as Delivery[];
    const claimedAt = Date.now();
    this.attemptsStarted += claimed.length;
    const runs = new Map<string, Delivery[]>();
    for (const d of claimed) {
      const run = runs.get(d.queue);
      if (run) run.push(d);
      else runs.set(d.queue, [d]);
    }
    for (const run of runs.values()) {
      const attempt: Promise<void> = this.attempt(run, claimedAt)
        .catch((err: unknown) => this.options.log.error('webhook delivery: its outcome could not be kept; it is sent again when its lease ends', { delivery: run[0]!.id, run: run.length, error: String(err) }))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.kick();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /**
   * A delivery per event and webhook of its user that asks for its type and existed when it happened
   * (inactive ones too: they are sent once it is active again).
   */
  private async fanOut(tx: Tx, events: readonly EventRecord[]): Promise<void> {
    const byUser = new Map<number, Webhook[]>();
    for (const userId of new Set(events.map((e) => e.userId))) {
      byUser.set(userId, (await tx.find<Webhook>('webhooks', { owner: userId, sort: { field: 'id', direction: 'asc' } })).items);
    }
    const now = this.options.clock.now();
    const deliveries = [];
    for (const e of events) {
      for (const hook of byUser.get(e.userId) ?? []) {
        if (wants(hook, e.type) && Date.parse(e.created) >= parseDateTime(hook.date)) deliveries.push(newDelivery(e.userId, hook.id, { id: e.eventId, type: e.type, created: e.created, data: e.data }, now));
      }
    }
    // One write for all, numbered in this order: a queue's order is its events' (deliveries have no unique key to refuse one).
    if (deliveries.length === 0) return;
    for (const stored of await tx.insertMany(DELIVERIES_COLLECTION, deliveries)) if (stored instanceof Error) throw stored;
  }

  /**
   * Sends a claimed run of one queue in order with its webhook's current URL and secret, until its
   * first failure, RUN_MS, or the webhook changes to off or gone, then keeps the outcomes (those not
   * sent are given back).
   */
  private async attempt(run: readonly Delivery[], claimedAt: number): Promise<void> {
    const { store, config, clock } = this.options;
    const read = () => withStoreDeadline(config.databaseTimeout * 1000, () => store.get<Webhook>('webhooks', run[0]!.webhookId));
    let seen = store.version('webhooks');
    let hook = await read();
    const gone = !hook;
    const runMs = Math.min(RUN_MS, config.webhookTimeout * 1000);
    const entries: RunEntry[] = [];
    let going = true;
    for (const d of run) {
      if (going && entries.length > 0) {
        going = !this.stopped && Date.now() - claimedAt < runMs;
        // A webhook written meanwhile (by any process) is read again: its new URL and secret are
        // used, and turned off or deleted, what is left of the run waits (or goes with it).
        if (going && store.version('webhooks') !== seen) {
          seen = store.version('webhooks');
          hook = await read();
          going = hook !== undefined && (d.manual || hook.active !== false);
        }
      }
      if (!going) {
        entries.push({ d });
        continue;
      }
      const result = hook ? await this.sendOne(hook, d) : { ok: false, status: null, error: 'the webhook was deleted', body: '', ms: 0 };
      entries.push({ d, result, at: clock.now() });
      // A failure stops the run: what follows waits for it (a deleted webhook's deliveries all fail at once).
      if (!result.ok && hook) going = false;
    }
    await withStoreDeadline(config.databaseTimeout * 1000, () => recordRun(this.options, entries, gone));
  }

  private sendOne(hook: Webhook, d: Delivery): Promise<AttemptResult> {
    const body = eventBody({ eventId: d.event.id, type: d.event.type, created: d.event.created, data: d.event.data });
    return this.send(hook.url, body, {
      'content-type': 'application/json',
      'user-agent': 'shortlink-server webhooks',
      'x-webhook-id': String(hook.id),
      'x-event-id': d.event.id,
      'x-event-type': d.event.type,
      'x-delivery-id': String(d.id),
      'x-signature': signatureHeader(hook.secret, Math.floor(this.wall() / 1000), body),
    });
  }
}
