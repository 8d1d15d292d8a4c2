import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { ResolvedAddress } from '../qr/public-fetch.ts';

/**
 * How long a connection to a receiver is kept once idle, ms: below the 5 s that Node's own servers
 * keep one (a receiver that says less in `Keep-Alive: timeout=N` is believed), so the receiver is
 * rarely the one that closes it while a delivery is being written to it.
 */
export const IDLE_MS = 4000;

/** Idle connections kept per receiver. */
const FREE_PER_RECEIVER = 4;

/** Receivers whose connections are kept at once; the least recently used one's are closed beyond it. */
export const MAX_RECEIVERS = 64;

/**
 * Connections kept open between deliveries, so a webhook's backlog goes over one connection (one
 * TCP and TLS handshake) instead of one per delivery. A pool belongs to a receiver's origin and
 * the exact addresses its name was checked to have: a connection is only ever reused for the
 * addresses it was made to, so a name that resolves elsewhere later (DNS rebinding, a move) gets
 * new connections to the addresses checked then, and the old ones close when idle.
 */
export class KeptConnections {
  private readonly pools = new Map<string, HttpAgent>();
  /** How many times close() was called: a request that began before one is not sent again. */
  closings = 0;

  /** The pool for `url`'s origin at `addresses` (made on first use). */
  agentFor(url: URL, addresses: readonly ResolvedAddress[]): HttpAgent {
    const key = `${url.protocol}//${url.host} ${addresses.map((a) => a.address).sort().join(' ')}`;
    const found = this.pools.get(key);
    if (found) {
      // Most recently used last: the first one is the one closed when there are too many.
      this.pools.delete(key);
      this.pools.set(key, found);
      return found;
    }
    const options = { keepAlive: true, timeout: IDLE_MS, maxFreeSockets: FREE_PER_RECEIVER, scheduling: 'lifo' as const };
    const agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    this.pools.set(key, agent);
    for (const [oldest, pool] of this.pools) {
      if (this.pools.size <= MAX_RECEIVERS) break;
      // Its idle connections close now; one carrying a delivery finishes it and then closes (none is kept idle).
      pool.maxFreeSockets = 0;
      closeIdle(pool);
      this.pools.delete(oldest);
    }
    return agent;
  }

  /** Pools open now (tests). */
  get size(): number {
    return this.pools.size;
  }

  /** Closes every kept connection (a delivery under way on one fails, and is not sent again). */
  close(): void {
    this.closings++;
    for (const pool of this.pools.values()) pool.destroy();
    this.pools.clear();
  }
}

/** Closes a pool's idle connections: one was found closed by the receiver, so the others likely were too. */
export function closeIdle(pool: HttpAgent): void {
  for (const sockets of Object.values(pool.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}
