import type { Db } from './reads.ts';

/** Places looked at by one statement while walking up to a gap. */
const WALK_PAGE = 2000;
/** Statements of one walk at most: further places wait for a later read (or a note to ripen). */
const WALK_STATEMENTS = 8;
/** How long a read waits for the places missing when it started (see current). */
const SETTLE_MS = 250;
/** Notes kept while a gap stands: the oldest ripen first, the newest is replaced beyond this many. */
const MAX_NOTES = 8;

interface Note {
  /** Every place up to this one was taken by a transaction whose xid is below `xmax`. */
  upTo: bigint;
  xmax: bigint;
}

interface Sight {
  xmin: string;
  xmax: string;
  top: string | null;
  after: string;
}

/**
 * How far the events' places can be read, in one process: the horizon, a place such that every
 * place up to it is final (its event committed, or it never will be). Transactions take places
 * (events_pos_seq) without waiting for one another and commit in any order, so a reader that went
 * past a place still missing could pass over an event that commits late; readers stop at the
 * horizon instead (pg-outbox.ts).
 *
 * The horizon moves two ways. Walking: places follow one another (the sequence hands them out one
 * by one), so the next place visible after the horizon moves it on, up to the first one missing.
 * Ripening: a place is missing while its transaction runs, and for good when that transaction
 * rolled back (or was cut off by a crash, or its user's events were removed). Every place up to the
 * highest one visible in a snapshot was taken by a transaction that had its xid then (the statement
 * placing events gets its xid before it takes a place), so below that snapshot's xmax; once a later
 * snapshot's xmin is past that xmax, every one of those transactions has ended, and every place up
 * to that highest one is final. A read notes (highest place, xmax) and the horizon moves up to the
 * notes that ripened, its own included when no transaction was running. A gap holds readers until
 * the transactions running when it was seen have all ended: one left open keeps them waiting.
 */
export class EventHorizon {
  private horizon = 0n;
  private notes: Note[] = [];
  private queued: Promise<bigint> | null = null;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly read: Db) {}

  /**
   * The horizon, moved on by a read that starts after this call (concurrent callers share one). It
   * waits up to SETTLE_MS for the places missing then to come or be proven gone (transactions
   * commit within milliseconds), so every event committed before the call is at or below it unless
   * a transaction running then has still not ended.
   */
  current(): Promise<bigint> {
    if (this.queued) return this.queued;
    const run = this.tail.then(async () => {
      this.queued = null;
      return (await this.settle(SETTLE_MS)).horizon;
    });
    this.queued = run;
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * A horizon after every event committed now: the highest place visible now once every place below
   * it is final, waited for up to `waitMs`; past that, the highest place visible is given as it is
   * (an event still not committed then below it is not waited for), so that one transaction left
   * open cannot hold every new reader.
   */
  async end(waitMs: number): Promise<bigint> {
    const { horizon, top } = await this.settle(waitMs);
    return horizon > top ? horizon : top;
  }

  /** Walks, then again every few milliseconds up to `waitMs` until the horizon reaches the highest place the first walk saw. */
  private async settle(waitMs: number): Promise<{ horizon: bigint; top: bigint }> {
    const top = await this.walk();
    for (const until = Date.now() + waitMs; this.horizon < top && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 5));
      await this.walk();
    }
    return { horizon: this.horizon, top };
  }

  /** Moves the horizon as far as the places visible now allow; the highest place visible. */
  private async walk(): Promise<bigint> {
    let top = 0n;
    for (let i = 0; i < WALK_STATEMENTS; i++) {
      const seen = await this.sight(this.horizon);
      if (seen.top !== null && BigInt(seen.top) > top) top = BigInt(seen.top);
      const at = this.take(seen);
      // Walked a full page to its end: more may follow.
      const places = seen.after === '' ? [] : seen.after.split(',');
      if (places.length < WALK_PAGE || at !== BigInt(places.at(-1)!)) break;
    }
    return top;
  }

  /** One statement: the snapshot's bounds, the highest place visible, the places after `from`. */
  private async sight(from: bigint): Promise<Sight> {
    const { rows } = await this.read<Sight>(
      `SELECT pg_snapshot_xmin(s.snap)::text AS xmin, pg_snapshot_xmax(s.snap)::text AS xmax, (SELECT max(pos) FROM events)::text AS top,
              array_to_string(ARRAY(SELECT pos FROM events WHERE pos > $1::bigint ORDER BY pos LIMIT $2), ',') AS after
       FROM (SELECT pg_current_snapshot() AS snap) s`,
      [String(from), WALK_PAGE],
    );
    return rows[0]!;
  }

  /** Moves the horizon on by what one statement saw: its note, the notes ripe by its xmin, then the walk. */
  private take(seen: Sight): bigint {
    const xmin = BigInt(seen.xmin);
    if (seen.top !== null) this.note({ upTo: BigInt(seen.top), xmax: BigInt(seen.xmax) });
    while (this.notes.length > 0 && this.notes[0]!.xmax <= xmin) {
      const ripe = this.notes.shift()!;
      if (ripe.upTo > this.horizon) this.horizon = ripe.upTo;
    }
    if (seen.after !== '') {
      for (const text of seen.after.split(',')) {
        const place = BigInt(text);
        if (place <= this.horizon) continue;
        if (place !== this.horizon + 1n) break;
        this.horizon = place;
      }
    }
    this.notes = this.notes.filter((n) => n.upTo > this.horizon);
    return this.horizon;
  }

  private note(n: Note): void {
    if (n.upTo <= this.horizon) return;
    const last = this.notes.at(-1);
    if (last && last.upTo >= n.upTo) return;
    if (this.notes.length >= MAX_NOTES) this.notes[this.notes.length - 1] = n;
    else this.notes.push(n);
  }
}
