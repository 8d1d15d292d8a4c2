import { DELIVERIES_COLLECTION } from '../outbox-records.ts';
import type { StoredRecord } from '../record.ts';
import type { MemoryReads } from './memory-reads.ts';

/** A queue's pending deliveries by id, in id order, from `at` on (those before it are done). */
interface Queue {
  ids: number[];
  at: number;
}

/**
 * The webhook deliveries still pending, per queue, in id order, for the file store's claims: a claim
 * looks at each queue's first pending delivery and the few behind it, not at every kept delivery
 * (delivered ones are kept for EVENT_RETENTION_DAYS), nor at every delivery of a queue that cannot
 * go now (a webhook turned off keeps queueing for days, a failing one for 24 hours).
 *
 * Kept up to date from the collection itself: deliveries are made pending only by their insert,
 * whose id is above every id before it, so each call walks only the deliveries inserted since the
 * last one (MemoryReads.fromId); those that stop being pending (delivered, failed, removed) leave
 * their queue's front as the queue is looked at. When the collection was renumbered (a delivery put
 * under an id of its own, the store replaced: the fake backend's reset) it is read again whole.
 */
export class PendingQueues {
  private readonly queues = new Map<string, Queue>();
  private walkFrom = 0;
  private renumberedAt = 0;
  /** Deliveries looked at since the last `fronts` (tests). */
  looked = 0;

  constructor(private readonly reads: MemoryReads) {}

  /** Each queue's first pending delivery, lowest first. */
  fronts(): { queue: string; head: StoredRecord }[] {
    this.looked = 0;
    this.catchUp();
    const out: { queue: string; head: StoredRecord }[] = [];
    for (const [queue, q] of this.queues) {
      const head = this.front(q);
      if (head) out.push({ queue, head });
      else this.queues.delete(queue);
    }
    return out.sort((a, b) => a.head.id - b.head.id);
  }

  /** The pending deliveries behind a queue's front, in id order. */
  *behind(queue: string): Generator<StoredRecord> {
    const q = this.queues.get(queue);
    if (!q) return;
    for (let i = q.at + 1; i < q.ids.length; i++) {
      const d = this.pending(q.ids[i]!);
      if (d) yield d;
    }
  }

  private pending(id: number): StoredRecord | undefined {
    this.looked++;
    const d = this.reads.get(DELIVERIES_COLLECTION, id);
    return d?.state === 'pending' ? d : undefined;
  }

  /** The first pending delivery of `q`, passing over those done since (their places given up now and then). */
  private front(q: Queue): StoredRecord | undefined {
    for (; q.at < q.ids.length; q.at++) {
      const d = this.pending(q.ids[q.at]!);
      if (!d) continue;
      if (q.at > 1024 && q.at * 2 > q.ids.length) {
        q.ids = q.ids.slice(q.at);
        q.at = 0;
      }
      return d;
    }
    return undefined;
  }

  /** Adds the pending deliveries inserted since the last call to their queues. */
  private catchUp(): void {
    const renumbered = this.reads.renumbered(DELIVERIES_COLLECTION);
    if (renumbered !== this.renumberedAt) {
      this.renumberedAt = renumbered;
      this.walkFrom = 0;
      this.queues.clear();
    }
    let seen = this.walkFrom - 1;
    for (const d of this.reads.fromId(DELIVERIES_COLLECTION, this.walkFrom)) {
      this.looked++;
      seen = d.id;
      if (d.state !== 'pending' || typeof d.queue !== 'string') continue;
      const q = this.queues.get(d.queue);
      if (q) q.ids.push(d.id);
      else this.queues.set(d.queue, { ids: [d.id], at: 0 });
    }
    this.walkFrom = Math.max(this.walkFrom, seen + 1);
  }
}
