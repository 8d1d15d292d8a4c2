import { createClient } from 'redis';
import { ANSWER_WITHIN_MS, KEEPALIVE_DELAY_MS, PROVEN_FOR_MS, RECONNECT_MAX_MS } from '../live-connections.ts';

/** Bound on a new connection: the TCP handshake and Redis's own (HELLO, CLIENT SETINFO) together. */
const CONNECT_WITHIN_MS = 1_500;

/** A client of `url` that never queues commands while disconnected, nor reconnects by itself: a lost connection is replaced by LiveRedis, as a silent one is. */
function newClient(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: CONNECT_WITHIN_MS, keepAlive: true, keepAliveInitialDelay: KEEPALIVE_DELAY_MS, reconnectStrategy: false },
  });
}

type Client = ReturnType<typeof newClient>;
const RETRY_MIN_MS = 100;
/** How often the connection's state is looked at. */
const TICK_MS = 200;

/**
 * One Redis connection that proves it is alive, replaced when it does not. The client's own
 * reconnection only follows a socket that closes; a network that goes silent leaves it open and
 * every command waiting forever (TCP keepalive notices after many minutes). So here: a command or
 * PING unanswered for ANSWER_WITHIN_MS, or a connection not ready within CONNECT_WITHIN_MS, has the
 * connection destroyed and a new one made (after 100 ms, doubling to RECONNECT_MAX_MS while they
 * fail); a connection quiet for PROVEN_FOR_MS is sent a PING. Commands are never queued while there
 * is no ready connection: they fail at once, and the caller decides what that means.
 */
export class LiveRedis {
  private client: Client | null = null;
  private ready = false;
  /** When the connection now being made was begun. */
  private since = 0;
  /** When the connection last answered. */
  private heardAt = 0;
  /** Commands under way on the ready connection: id → when sent. */
  private readonly waiting = new Map<number, number>();
  private sent = 0;
  private retryMs = RETRY_MIN_MS;
  private reconnectAt = 0;
  private pinging = false;
  private closed = false;
  private readonly ticker: NodeJS.Timeout;
  private readonly firstReady: Promise<void>;
  private onFirstReady: () => void = () => {};
  /** Connections given up on because they did not answer or connect in time (tests read it). */
  replaced = 0;

  constructor(private readonly url: string) {
    this.firstReady = new Promise((resolve) => (this.onFirstReady = resolve));
    this.connect();
    this.ticker = setInterval(() => this.tick(), TICK_MS).unref();
  }

  /** Resolves once a connection is ready, or after `ms` (connecting goes on). */
  async waitReady(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.firstReady, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** Runs `command` on the ready connection; throws at once when there is none. */
  async send<T>(command: (client: Client) => Promise<T>): Promise<T> {
    const client = this.client;
    if (!client || !this.ready) throw new Error('Redis is not connected');
    const id = ++this.sent;
    this.waiting.set(id, Date.now());
    try {
      const answer = await command(client);
      if (this.client === client) this.heardAt = Date.now();
      return answer;
    } finally {
      this.waiting.delete(id);
    }
  }

  /** Resolves when Redis answers a PING. */
  async ping(): Promise<void> {
    await this.send((c) => c.ping());
  }

  /** Drops the connection for good (or stops making one). */
  close(): void {
    this.closed = true;
    clearInterval(this.ticker);
    this.drop();
  }

  private connect(): void {
    if (this.closed) return;
    const client = newClient(this.url);
    this.client = client;
    this.ready = false;
    this.since = Date.now();
    // Failures are what the rate limits report (once per outage), not one line each.
    client.on('error', () => {});
    client.on('end', () => this.lost(client));
    client.on('terminated', () => this.lost(client));
    client.connect().then(
      () => {
        if (this.client !== client) return;
        this.ready = true;
        this.heardAt = Date.now();
        this.retryMs = RETRY_MIN_MS;
        this.onFirstReady();
      },
      () => this.lost(client),
    );
  }

  private tick(): void {
    if (this.closed) return;
    const now = Date.now();
    if (!this.client) {
      if (now >= this.reconnectAt) this.connect();
      return;
    }
    if (!this.ready) {
      if (now - this.since > CONNECT_WITHIN_MS) this.replace();
      return;
    }
    const oldest = Math.min(...this.waiting.values());
    if (now - oldest > ANSWER_WITHIN_MS) {
      this.replace();
      return;
    }
    if (now - this.heardAt > PROVEN_FOR_MS && !this.pinging) {
      this.pinging = true;
      this.ping()
        .catch(() => {})
        .finally(() => (this.pinging = false));
    }
  }

  /** The connection did not answer or connect in time: a new one is made after the backoff. */
  private replace(): void {
    this.replaced++;
    this.drop();
  }

  private lost(client: Client): void {
    if (this.client === client) this.drop();
  }

  private drop(): void {
    const client = this.client;
    this.client = null;
    this.ready = false;
    this.waiting.clear();
    this.reconnectAt = Date.now() + this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
    try {
      // Rejects what waits on it: those callers learn at once.
      client?.destroy();
    } catch {
      // already closed
    }
  }
}
