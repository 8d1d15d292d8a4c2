import type { Logger } from '../../log.ts';
import { storeDeadline, withStoreDeadlineAt } from '../deadline.ts';
import type { ReplicaState } from '../store.ts';
import { PgConnections } from './connections.ts';
import { describeUrl, isUnavailable } from './errors.ts';
import { LivePool } from './live-pool.ts';
import { answerTimeout, createPool } from './pool.ts';
import type { ConnectionSettings } from './pool.ts';
import type { Db } from './reads.ts';

/** How often each process compares the replicas' replay position with the primary's WAL. */
export const REPLICA_CHECK_MS = 200;
/** How soon an extra round runs after a read found a well replica that does not hold a write yet (at most one pending). */
const SOON_MS = 20;
// A round whose position a replica has not reached is kept this long at most (its lag is then at least this).
const KEPT_ROUNDS = 600;

/** One round of the check: where the primary's WAL was, when, and the collections' versions just before. */
interface Round {
  lsn: bigint;
  at: number;
  versions: ReadonlyMap<string, number>;
}

/** A streaming replica and what this process knows of it. */
class Replica {
  readonly name: string;
  readonly db: PgConnections;
  readonly live: LivePool;
  state: ReplicaState['state'] = 'starting';
  lagMs: number | null = null;
  reads = 0;
  /** Rounds whose position it had not replayed when last asked, oldest first. */
  behind: Round[] = [];
  /** The versions of the newest round it has replayed (a collection not named: version 0): what it is known to hold; null before any. */
  holds: ReadonlyMap<string, number> | null = null;
  /** Whether its question of a round is still unanswered (a silent replica holds up no other). */
  asking = false;
  /** How many times it was found gone: an answer to a question asked before the latest says nothing of now. */
  falls = 0;

  constructor(url: string, settings: ConnectionSettings, poolSize: number, log: Logger, fell: (replica: Replica, err: unknown) => void) {
    this.name = describeUrl(url);
    const replica = { ...settings, url };
    // An idle connection it drops (a restart, a stop) is the replica's news: one line, from fell().
    const pool = createPool(replica, poolSize, log, (err) => fell(this, err));
    this.live = new LivePool(pool, settings.connectTimeoutMs);
    this.db = new PgConnections(this.live, (err) => err, log, answerTimeout(replica));
  }
}

/**
 * Where the store's plain reads go when DATABASE_READ_URL names streaming replicas: to a replica
 * known to hold every write this process has seen (its own, and others' heard through the change
 * feed), else to the primary.
 *
 * Every REPLICA_CHECK_MS a round notes the collections' versions, then the primary's WAL insert
 * position, then asks each replica how far it has replayed. A replica that has replayed a round's
 * position holds every commit counted in that round's versions (a version moves only after its
 * commit). A read of a collection goes to a replica only when the replica holds the collection's
 * current version: after a write (here, or heard from another process) reads of that collection go
 * to the primary until a replica has replayed past it, so a request sees its own writes and a cache
 * dropped by a notification is refilled from the primary. A replica's lag is how long ago the
 * oldest round it has not replayed began (0 when it has replayed them all, whatever the clocks say);
 * over `maxLagMs` it is skipped, and one that does not answer is skipped, each with one log line,
 * until a later round finds it well again. With none well, every read goes to the primary.
 */
export class ReplicaSet {
  private readonly replicas: Replica[];
  private timer: NodeJS.Timeout | null = null;
  /** Whether a round is waiting on the primary's position (rounds never pile up on a slow primary). */
  private positioning = false;
  /** The extra round asked for by a read that had to go to the primary (null: none pending). */
  private soonTimer: NodeJS.Timeout | null = null;
  private next = 0;
  private closed = false;
  /** Routed reads the primary answered (no replica fit, or the one chosen failed). */
  primaryReads = 0;

  constructor(
    urls: readonly string[],
    settings: ConnectionSettings,
    poolSize: number,
    /** A statement on the primary. */
    private readonly primary: Db,
    /** Every collection's current version (PostgresStore.version). */
    private readonly versions: () => ReadonlyMap<string, number>,
    private readonly maxLagMs: number,
    private readonly log: Logger,
  ) {
    this.replicas = urls.map((url) => new Replica(url, { ...settings, applicationName: `${settings.applicationName}/replica-reads` }, poolSize, log, (r, err) => this.fell(r, err)));
  }

  /** Starts the rounds (the first at once); resolves after the first. */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), REPLICA_CHECK_MS);
    this.timer.unref();
  }

  /** A statement that reads `collections` (whose versions say which replica may answer): on a fit replica, else on the primary. */
  reader(collections: readonly string[]): Db {
    return async (text, values) => {
      const replica = this.pick(collections);
      if (replica) {
        try {
          // A replica gone silent may take half of what is left of the caller's wait, never all: the primary answers in the rest.
          const at = storeDeadline();
          const read = () => replica.db.read(text, values);
          const answer = await (at === undefined ? read() : withStoreDeadlineAt(Date.now() + (at - Date.now()) / 2, read));
          replica.reads++;
          return answer as never;
        } catch (err) {
          if (isUnavailable(err)) this.fell(replica, err);
          // Any failure of a replica (a conflict with recovery included) is the primary's to answer.
        }
      }
      this.primaryReads++;
      return this.primary(text, values);
    };
  }

  /** What each replica is doing now, for /ready and tests. */
  states(): ReplicaState[] {
    return this.replicas.map((r) => ({ name: r.name, state: r.state, lagMs: r.lagMs, reads: r.reads }));
  }

  /** Runs one round now (tests; the timer runs them otherwise): resolves once every replica not still busy with an earlier one answered. */
  check(): Promise<void> {
    return this.round();
  }

  /** Stops the rounds and closes the replicas' connections. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.soonTimer) clearTimeout(this.soonTimer);
    await Promise.all(this.replicas.map((r) => r.db.end()));
  }

  /**
   * A well replica holding every collection's current version, in turn; null for none. When a well
   * one only lacks a recent write, a round is run soon rather than at the next tick: a collection
   * written every few hundred milliseconds would otherwise be read on the primary nearly always.
   */
  private pick(collections: readonly string[]): Replica | null {
    const now = this.versions();
    let behind = false;
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length]!;
      if (replica.state !== 'ok') continue;
      const holds = replica.holds;
      if (!holds || !collections.every((c) => (holds.get(c) ?? 0) >= (now.get(c) ?? 0))) {
        behind = true;
        continue;
      }
      this.next = (this.next + i + 1) % this.replicas.length;
      return replica;
    }
    if (behind) this.soon();
    return null;
  }

  /** An extra round SOON_MS from now, unless one is already pending. */
  private soon(): void {
    if (this.soonTimer || this.closed) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = null;
      void this.round();
    }, SOON_MS);
    this.soonTimer.unref();
  }

  private async round(): Promise<void> {
    if (this.closed || this.positioning) return;
    this.positioning = true;
    const at = Date.now();
    // Versions first: every commit they count is in the WAL before the position read next.
    const versions = new Map(this.versions());
    let lsn: bigint;
    try {
      const { rows } = await this.primary<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      lsn = pageStart(parseLsn(rows[0]!.lsn));
    } catch {
      // The primary's own trouble is the store's to report; the replicas keep their state meanwhile.
      return;
    } finally {
      this.positioning = false;
    }
    const round: Round = { lsn, at, versions };
    for (const r of this.replicas) {
      r.behind.push(round);
      if (r.behind.length > KEPT_ROUNDS) r.behind.shift();
    }
    await Promise.all(this.replicas.filter((r) => !r.asking).map((r) => this.ask(r)));
  }

  private async ask(replica: Replica): Promise<void> {
    if (this.closed) return;
    let replayed: bigint;
    replica.asking = true;
    const falls = replica.falls;
    try {
      const { rows } = await replica.db.read<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
      // NULL: not a standby (or one that replays nothing): it cannot be known to hold anything.
      if (rows[0]?.lsn == null) throw new Error('it is not a streaming replica (pg_last_wal_replay_lsn() is null)');
      replayed = parseLsn(rows[0].lsn);
    } catch (err) {
      this.fell(replica, err);
      return;
    } finally {
      replica.asking = false;
    }
    // Answered on a connection from before it was found gone (a stopping server ends its sessions one by one): not back.
    if (replica.falls !== falls) return;
    while (replica.behind.length > 0 && replica.behind[0]!.lsn <= replayed) replica.holds = replica.behind.shift()!.versions;
    replica.lagMs = replica.behind.length === 0 ? 0 : Date.now() - replica.behind[0]!.at;
    const state = replica.lagMs > this.maxLagMs ? 'lagging' : 'ok';
    if (state === replica.state) return;
    if (state === 'lagging') this.log.warn('PostgreSQL replica lags: its reads go elsewhere until it catches up', { replica: replica.name, lagMs: replica.lagMs, maxLagMs: this.maxLagMs });
    else if (replica.state !== 'starting') this.log.info('PostgreSQL replica serves reads again', { replica: replica.name, lagMs: replica.lagMs });
    replica.state = state;
  }

  /** Marks a replica unreachable (one log line when it was not already); its connections are made afresh. */
  private fell(replica: Replica, err: unknown): void {
    if (this.closed) return;
    if (replica.state !== 'down') this.log.warn('PostgreSQL replica does not answer: its reads go elsewhere until it does', { replica: replica.name, error: err instanceof Error ? err.message : String(err) });
    replica.state = 'down';
    replica.lagMs = null;
    replica.falls++;
    // A stopping server ends its sessions one by one: one still open must not pass for the replica being back.
    replica.live.forgetAll();
  }
}

/** An LSN's text ('16/B374D848') as one number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

// The insert position of an idle primary may sit just past a WAL page's header (24 bytes, 40 at a
// segment's first page: PostgreSQL's XLOG_BLCKSZ of 8 KB), where a replica's replay position is the
// page's start: nothing is between the two.
const PAGE = 8192n;
function pageStart(lsn: bigint): bigint {
  const offset = lsn % PAGE;
  return offset === 24n || offset === 40n ? lsn - offset : lsn;
}
