import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { ANSWER_WITHIN_MS, PROVEN_FOR_MS, RECONNECT_MAX_MS } from '../../live-connections.ts';
import type { Logger } from '../../log.ts';
import { outsideStoreDeadline } from '../deadline.ts';
import { clientConfig } from './pool.ts';
import type { ConnectionSettings } from './pool.ts';
import type { Db } from './reads.ts';

/** What changed: some collections, or everything (a cascade, a replace, a missed stretch). */
export type Changed = readonly string[] | 'all';

/** While the feed is down, every cache is treated as changed this often: nothing is kept longer. */
export const UNHEARD_TICK_MS = 500;
const RETRY_MIN_MS = 100;
// NOTIFY payloads must stay under 8000 bytes; a message larger than this says "everything".
const MAX_PAYLOAD = 4_000;

/** The NOTIFY channel of a schema: one per schema, so servers on other schemas of the database never hear it. */
export function channelOf(schema: string): string {
  const name = `shortlink_${schema}`;
  // Channel names are identifiers: at most 63 bytes.
  return name.length <= 63 ? name : `shortlink_${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`;
}

/**
 * The schema's change notifications: sent by every committed write (a group commit's and a
 * counters flush's right after its COMMIT in the same message, `notifySql`, which a failed COMMIT
 * skips; others' inside the transaction, `publishIn`, which PostgreSQL delivers on commit), never
 * for a rollback, and heard on
 * one connection of its own per process (not from the pool: LISTEN belongs to a session). A message
 * names the collections written and the process that wrote them, which ignores its own.
 *
 * If the connection drops, `onChange('all')` is called at once and then every UNHEARD_TICK_MS
 * until it is back (so caches keep nothing longer than that while changes cannot be heard), the
 * connection is reopened with a backoff of 100 ms doubling to 1 s, and once LISTEN runs again
 * `onChange('all')` covers whatever was missed meanwhile. The connection proves it is alive: it is
 * asked `SELECT 1` every PROVEN_FOR_MS and dropped (as if it had dropped) when no answer comes
 * within ANSWER_WITHIN_MS, so a network that went silent is noticed within about 3 s (TCP
 * keepalive alone would take many minutes) and the feed is back within a second or two of the network.
 */
export class ChangeFeed {
  /** Tells this process's messages from the others'. */
  readonly origin = randomUUID();
  readonly channel: string;
  private client: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private unheardTimer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly onChange: (changed: Changed) => void,
    private readonly log: Logger,
  ) {
    this.channel = channelOf(settings.schema);
  }

  /** Whether changes made elsewhere are heard now. */
  get heard(): boolean {
    return this.listening;
  }

  /** Opens the listening connection; when it cannot, runs as if it had dropped (and keeps trying). */
  async start(): Promise<void> {
    // Its timers and reconnections belong to no caller (deadline.ts).
    await outsideStoreDeadline(() => this.connect());
  }

  /** Sends the message of a write of `changed` inside the caller's transaction (delivered on commit). */
  async publishIn(db: Db, changed: Changed): Promise<void> {
    const payload = this.payloadOf(changed);
    if (payload !== null) await db('SELECT pg_notify($1, $2)', [this.channel, payload]);
  }

  /**
   * The same message as one statement of SQL text, for the caller to send in one round trip with
   * its COMMIT (`COMMIT; SELECT …`: connections.ts says why after); null when nothing changed. Its
   * values are our own (the channel, this process's id and collection names), quoted as literals.
   */
  notifySql(changed: Changed): string | null {
    const payload = this.payloadOf(changed);
    return payload === null ? null : `SELECT pg_notify(${pg.escapeLiteral(this.channel)}, ${pg.escapeLiteral(payload)})`;
  }

  private payloadOf(changed: Changed): string | null {
    if (changed !== 'all' && changed.length === 0) return null;
    const payload = JSON.stringify({ o: this.origin, c: changed });
    return payload.length > MAX_PAYLOAD ? JSON.stringify({ o: this.origin, c: 'all' }) : payload;
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of [this.retryTimer, this.unheardTimer, this.heartbeat]) if (timer) clearTimeout(timer);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    if (this.closed) return;
    const settings = { ...this.settings, applicationName: listenerName(this.settings.applicationName) };
    const client = new pg.Client(clientConfig(settings));
    this.client = client;
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('the connection ended')));
    client.on('notification', (m) => this.heardMessage(m.payload));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.closed || this.client !== client) return;
    const wasDown = this.unheardTimer !== null;
    this.listening = true;
    this.retryMs = RETRY_MIN_MS;
    if (this.unheardTimer) clearInterval(this.unheardTimer);
    this.unheardTimer = null;
    const ping = { text: 'SELECT 1', query_timeout: ANSWER_WITHIN_MS } as pg.QueryConfig;
    this.heartbeat = setInterval(() => void client.query(ping).catch((err: unknown) => this.lost(client, err)), PROVEN_FOR_MS).unref();
    // Whatever changed while nobody listened is unknown: every cache starts afresh.
    this.onChange('all');
    if (wasDown) this.log.info('PostgreSQL change notifications are heard again');
  }

  private heardMessage(payload: string | undefined): void {
    try {
      const message = JSON.parse(payload ?? '') as { o?: unknown; c?: unknown };
      if (message.o === this.origin) return;
      const changed = Array.isArray(message.c) ? message.c.filter((c): c is string => typeof c === 'string') : 'all';
      this.onChange(changed);
    } catch {
      this.onChange('all');
    }
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    this.listening = false;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    void client.end().catch(() => {});
    this.onChange('all');
    if (!this.unheardTimer) {
      this.log.warn('PostgreSQL change notifications are not heard: caches are kept at most 0.5 s until they are', { error: err instanceof Error ? err.message : String(err) });
      this.unheardTimer = setInterval(() => this.onChange('all'), UNHEARD_TICK_MS).unref();
    }
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
  }
}

/** What the listening connection shows in pg_stat_activity: the store's name and " changes". */
export function listenerName(applicationName: string): string {
  return `${applicationName} changes`;
}
