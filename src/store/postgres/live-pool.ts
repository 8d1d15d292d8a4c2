import type pg from 'pg';
import { ANSWER_WITHIN_MS, PROVEN_FOR_MS } from '../../live-connections.ts';
import { timeLeft } from '../deadline.ts';

/**
 * The pool's connections, each proven alive before it is used: one that answered within
 * PROVEN_FOR_MS is used as it is; an older one must answer `SELECT 1` within ANSWER_WITHIN_MS
 * (less when the caller has less time), or it is destroyed and another taken. A ping that gets no
 * answer condemns every connection last heard from before it (they share the network path that
 * went silent), and a statement that got no answer has the others pinged before their next use.
 * So after a silent network drop and its repair, the pool costs a request at most one ping's wait
 * before it is on a fresh connection. Every wait is bounded by the caller's deadline (deadline.ts).
 */
export class LivePool {
  /** When each connection last answered (or connected). */
  private readonly heardAt = new WeakMap<pg.PoolClient, number>();
  /** Connections last heard from before this are destroyed unused. */
  private dropBefore = 0;
  /** Connections last heard from before this are pinged before use, however recently that was. */
  private checkBefore = 0;
  /** Connections destroyed because they did not answer in time (tests and logs read it). */
  dropped = 0;

  constructor(
    readonly pool: pg.Pool,
    /** Bound on getting a connection from the pool (a new one included). */
    private readonly connectMs: number,
  ) {
    pool.on('connect', (client) => this.heardAt.set(client, Date.now()));
  }

  /** A connection of the pool that is known to answer; throws when none is had within the bound or the deadline. */
  async borrow(): Promise<pg.PoolClient> {
    for (;;) {
      const client = await checkout(this.pool, timeLeft(this.connectMs));
      // Checked out, a client's connection errors have no other listener: without one they would crash the process.
      client.on('error', onClientError);
      const heard = this.heardAt.get(client) ?? 0;
      if (heard < this.dropBefore) {
        this.destroy(client);
        continue;
      }
      if (Date.now() - heard < PROVEN_FOR_MS && heard >= this.checkBefore) return client;
      let wait: number;
      try {
        wait = timeLeft(ANSWER_WITHIN_MS);
      } catch (err) {
        // Unasked, so not proven: back as it was.
        client.removeListener('error', onClientError);
        client.release();
        throw err;
      }
      const asked = Date.now();
      try {
        await client.query({ text: 'SELECT 1', query_timeout: wait } as pg.QueryConfig);
        this.heardAt.set(client, Date.now());
        return client;
      } catch (err) {
        // A ping cut short by the caller's deadline proves nothing about the others: they are only checked.
        if (wait === ANSWER_WITHIN_MS) this.dropBefore = Math.max(this.dropBefore, asked);
        else this.checkBefore = Date.now();
        this.destroy(client, err);
        // Out of time now: the next checkout's timeLeft says so.
      }
    }
  }

  /** Destroys every connection made until now at its next checkout (the server they reach was found gone, or stopping). */
  forgetAll(): void {
    this.dropBefore = Math.max(this.dropBefore, Date.now() + 1);
  }

  /** Gives a connection back: heard from now, or destroyed when `err` says it failed (lost, or no answer in time). */
  release(client: pg.PoolClient, err?: unknown): void {
    if (err) {
      if (noAnswer(err)) this.checkBefore = Date.now();
      this.destroy(client, err);
      return;
    }
    this.heardAt.set(client, Date.now());
    client.removeListener('error', onClientError);
    client.release();
  }

  /** Closes every connection. */
  end(): Promise<void> {
    return this.pool.end();
  }

  private destroy(client: pg.PoolClient, err?: unknown): void {
    if (err === undefined || noAnswer(err)) this.dropped++;
    client.removeListener('error', onClientError);
    // With a statement still unanswered, pg's end() destroys the socket rather than wait on it.
    client.release(err instanceof Error ? err : true);
  }
}

// A checked-out connection that breaks is reported by the statement that fails; this only keeps the event from crashing the process.
function onClientError(): void {}

/** Whether `err` is node-postgres giving up on an answer (a read timeout of ours), not an answer of the server. */
function noAnswer(err: unknown): boolean {
  return err instanceof Error && !(err as { code?: unknown }).code && /Query read timeout/.test(err.message);
}

/** A connection from the pool within `ms`; one that comes later is given back at once. */
async function checkout(pool: pg.Pool, ms: number): Promise<pg.PoolClient> {
  const pending = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([pending, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout exceeded when trying to connect')), ms)))]);
  } catch (err) {
    pending.then((late) => late.release(), () => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
