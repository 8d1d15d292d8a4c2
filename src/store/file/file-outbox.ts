import { randomUUID } from 'node:crypto';
import { DELIVERIES_COLLECTION, EVENTS_COLLECTION, OUTBOX_COLLECTION } from '../store.ts';
import type { EventRecord, NewEvent, Outbox, PlacedEvent, StoredRecord, Tx } from '../store.ts';
import type { MemoryReads } from './memory-reads.ts';
import { PendingQueues } from './pending-queues.ts';
import type { SyncTx } from './transaction.ts';

/** The outbox's one record: where routing stands. */
const STATE_ID = 1;

/** The place in `all` (in id order) of the first record whose id is above `id`. */
function firstAbove(all: readonly StoredRecord[], id: number): number {
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (all[mid]!.id <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Appends events inside a file-store transaction, each as a record of the events collection; an event of a user gone meanwhile is dropped. */
export async function appendEventsIn(tx: Pick<SyncTx, 'insert'>, events: readonly NewEvent[], isUser: (id: number) => boolean): Promise<void> {
  // The transaction's inserts are synchronous: no await per event (a bulk create appends a thousand).
  // insert stores a copy of the event already.
  for (const e of events) if (isUser(e.userId)) tx.insert(EVENTS_COLLECTION, e);
}

/**
 * The file store's outbox. Its transactions run one at a time and number records as they commit,
 * so an event's id is its place in the order and the cursor is that id. One process owns the
 * directory: a lease taken by an earlier process (killed while it delivered) is void at once.
 */
export class FileOutbox implements Outbox {
  /** This opening of the store: leases of another one are over. */
  private readonly instance = randomUUID();
  /** The pending deliveries per queue: a claim looks at the queues' fronts, not at every kept delivery. */
  readonly pending: PendingQueues;

  constructor(
    private readonly reads: MemoryReads,
    private readonly transaction: <R>(fn: (tx: Tx) => Promise<R>) => Promise<R>,
  ) {
    this.pending = new PendingQueues(reads);
  }

  /** Events with an id above `cursor`, in id order. */
  async eventsAfter(cursor: string | null, limit: number, owner?: number): Promise<PlacedEvent[]> {
    return this.after(Number(cursor ?? 0), limit, owner);
  }

  private after(after: number, limit: number, owner?: number): PlacedEvent[] {
    const all = this.reads.inIdOrder(EVENTS_COLLECTION, owner) as readonly EventRecord[];
    const lo = firstAbove(all, after);
    return all.slice(lo, lo + Math.max(0, limit)).map((event) => ({ cursor: String(event.id), event }));
  }

  /** The id of the event, as a cursor. */
  async cursorOf(eventId: string): Promise<string | null> {
    const found = this.reads.lookup<EventRecord>(EVENTS_COLLECTION, 'eventId', eventId);
    return found ? String(found.id) : null;
  }

  /** The last event's id. */
  async endCursor(): Promise<string> {
    const all = this.reads.inIdOrder(EVENTS_COLLECTION, undefined);
    return String(all.at(-1)?.id ?? 0);
  }

  /** Routes in a transaction of its own (never concurrent here: transactions run one at a time). */
  async route(limit: number, fn: (tx: Tx, events: readonly EventRecord[]) => Promise<void>): Promise<number | null> {
    return this.transaction(async (tx) => {
      const state = await tx.get<StoredRecord & { routed?: string }>(OUTBOX_COLLECTION, STATE_ID);
      const events = this.after(Number(state?.routed ?? 0), limit);
      if (events.length === 0) return 0;
      await fn(tx, events.map((e) => e.event));
      const routed = events.at(-1)!.cursor;
      if (state) await tx.update(OUTBOX_COLLECTION, STATE_ID, { routed });
      else await tx.put(OUTBOX_COLLECTION, { id: STATE_ID, routed });
      return events.length;
    });
  }

  /**
   * Leases the due heads of the queues, lowest first, each with the run behind it (the due ones
   * that follow it, up to the first not due), in one transaction.
   */
  async claimDeliveries(now: number, leaseMs: number, limit: number, run = 1): Promise<StoredRecord[]> {
    if (limit <= 0) return [];
    return this.transaction(async (tx) => {
      const wall = Date.now();
      const chosen: StoredRecord[] = [];
      let heads = 0;
      for (const { queue, head } of this.pending.fronts()) {
        if (heads >= limit) break;
        const leased = typeof head.lease === 'string' && head.leaseOwner === this.instance && Number(head.leaseUntil) > wall;
        if (leased || Number(head.nextAt) > now || !(head.manual === true || this.active(Number(head.webhookId)))) continue;
        chosen.push(head);
        heads++;
        let room = run - 1;
        for (const d of room > 0 ? this.pending.behind(queue) : []) {
          if (Number(d.nextAt) > now) break;
          chosen.push(d);
          if (--room === 0) break;
        }
      }
      const lease = randomUUID();
      const out: StoredRecord[] = [];
      for (const d of chosen) out.push((await tx.update(DELIVERIES_COLLECTION, d.id, { lease, leaseUntil: wall + leaseMs, leaseOwner: this.instance }))!);
      return out;
    });
  }

  private active(webhookId: number): boolean {
    const hook = this.reads.get<StoredRecord & { active?: boolean }>('webhooks', webhookId);
    return hook !== undefined && hook.active !== false;
  }

  /** Removes what was created before `before` (no write when there is none). */
  async prune(before: string): Promise<void> {
    const old = (c: string) => this.reads.inIdOrder(c, undefined).filter((r) => String(r.created) < before);
    const gone = [...old(DELIVERIES_COLLECTION).map((r) => [DELIVERIES_COLLECTION, r.id] as const), ...old(EVENTS_COLLECTION).map((r) => [EVENTS_COLLECTION, r.id] as const)];
    if (gone.length === 0) return;
    await this.transaction(async (tx) => {
      for (const [c, id] of gone) await tx.remove(c, id);
    });
  }
}
