import { randomUUID } from 'node:crypto';
import { DELIVERIES_COLLECTION, EVENTS_COLLECTION, OUTBOX_COLLECTION } from '../store.ts';
import type { EventRecord, NewEvent, Outbox, PlacedEvent, StoredRecord, Tx } from '../store.ts';
import { Turns } from '../../turns.ts';
import { EventHorizon } from './event-horizon.ts';
import type { Db } from './reads.ts';
import { arrayLiteral, newRow, recordOf, ROW_COLUMNS } from './rows.ts';
import type { Row, RowValues } from './rows.ts';
import type { TablePlan } from './tables.ts';

// A cursor is an event's `pos` (migration 012): its place, taken from events_pos_seq as its
// transaction's last statement stores it; "0" is before every event. Readers stop at the horizon
// (event-horizon.ts), below which every place is final, so none passes over an event that commits late.
function parse(cursor: string | null): string {
  return cursor !== null && /^\d{1,19}$/.test(cursor) ? cursor : '0';
}

/** How long a new reader's start (endCursor) waits for the places below the last one visible to be final. */
const END_WAIT_MS = 1000;

/**
 * Stores a transaction's events, each with its place, in one statement: the last of the transaction
 * before its COMMIT (a transaction's events wait in memory until then: PgTx.appendEvents, and the
 * group's whole list goes at once, group-commit.ts). The rows are numbered from events_pos_seq in
 * the order given, after the transaction has its xid (the horizon's reasoning needs it: a place is
 * only ever held by a transaction with an xid). Transactions placing events do not wait for one
 * another: readers stop at the horizon instead. Events of users gone meanwhile are dropped. How many were stored.
 */
export async function placeEventsIn(db: Db, plan: TablePlan, events: readonly NewEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  // A bulk create or a busy second's flush brings thousands: made in slices (turns.ts).
  const turns = new Turns();
  const values: RowValues[] = [];
  for (const e of events) {
    if (turns.due()) await turns.next();
    values.push(newRow(plan, e).values);
  }
  const keys = plan.keys.map((k) => `, "${k.column}"`).join('');
  const columns = plan.keys.map((_, i) => `, unnest($${i + 3}::text[])`).join('');
  const names = plan.keys.map((_, i) => `, x.k${i}`).join('');
  const aliases = plan.keys.map((_, i) => `, k${i}`).join('');
  // The events' data as one JSON array, as insertRecords sends records: a jsonb[] parameter has the
  // driver escape every quote of a thousand JSON texts, a quarter of a bulk create's CPU in Node.
  // No row comes out of the join before the xid's one row: the places (nextval, after the sort) are taken with it.
  // Each owner is locked once, as a foreign key's check would lock it per row (migration 016): a
  // user deleted meanwhile is not found, and its events are dropped; one being deleted waits for this COMMIT.
  const { rowCount } = await db(
    `WITH xact AS MATERIALIZED (SELECT pg_current_xact_id()),
     owners AS MATERIALIZED (SELECT u.id FROM xact, users u WHERE u.id = ANY($1::bigint[]) FOR KEY SHARE OF u)
     INSERT INTO ${plan.table} (user_id, data${keys}, pos)
     SELECT x.u, x.d${names}, nextval('events_pos_seq') FROM xact, ROWS FROM (unnest($1::bigint[]), jsonb_array_elements($2::jsonb)${columns}) WITH ORDINALITY AS x(u, d${aliases}, n)
     WHERE x.u IN (SELECT id FROM owners) ORDER BY x.n`,
    [arrayLiteral(values.map((v) => v.userId)), `[${values.map((v) => v.data).join(',')}]`, ...plan.keys.map((_, i) => arrayLiteral(values.map((v) => v.keys[i])))],
  );
  return rowCount ?? 0;
}

/** Events placed after `cursor` up to the horizon `upTo`, in order. */
async function eventsAfterIn(db: Db, cursor: string | null, upTo: bigint, limit: number, owner?: number): Promise<PlacedEvent[]> {
  const byOwner = owner === undefined ? '' : ' AND t.user_id = $4::bigint';
  const values: unknown[] = [parse(cursor), String(upTo), Math.max(0, Math.floor(limit))];
  if (owner !== undefined) values.push(owner);
  const { rows } = await db<Row & { pos: string }>(`SELECT ${ROW_COLUMNS}, t.pos::text AS pos FROM events t WHERE t.pos > $1::bigint AND t.pos <= $2::bigint${byOwner} ORDER BY t.pos LIMIT $3`, values);
  return rows.map((r) => ({ cursor: r.pos, event: recordOf<EventRecord>(r) }));
}

/**
 * The pending deliveries behind each of the locked `heads` in its queue, up to `most` each, as long
 * as they are due at `now` (a manual head's queue holds it alone). Locked by the UPDATE that leases
 * them: only the process holding a queue's head leases what is behind it. The row comparison has the
 * planner walk deliveries_k_queue_idx from the head (`t.id > h.id` alone had it scan the primary key
 * past every later delivery of other queues: 89 ms for a head with nothing behind it, of 300,000).
 */
async function followers(db: Db, heads: readonly number[], now: number, most: number): Promise<number[]> {
  const { rows } = await db<{ head: string; id: string; due: boolean }>(
    `SELECT h.id AS head, f.id, f.due FROM ${DELIVERIES_COLLECTION} h
     CROSS JOIN LATERAL (SELECT t.id, (t.data ->> 'nextAt')::bigint <= $2::bigint AS due FROM ${DELIVERIES_COLLECTION} t
                         WHERE t.k_queue = h.k_queue AND (t.k_queue, t.id) > (h.k_queue, h.id) ORDER BY t.k_queue, t.id LIMIT $3) f
     WHERE h.id = ANY($1::bigint[]) ORDER BY h.id, f.id`,
    [heads, now, most],
  );
  const out: number[] = [];
  const cut = new Set<string>();
  for (const r of rows) {
    if (cut.has(r.head)) continue;
    if (r.due) out.push(Number(r.id));
    else cut.add(r.head);
  }
  return out;
}

/** What the PostgreSQL outbox needs of its store. */
export interface PgOutboxDeps {
  read: Db;
  /** One transaction, retried on a serialization failure. */
  inTransaction<R>(work: (db: Db) => Promise<R>): Promise<R>;
  /** A store transaction over `db`, and what it wrote once `fn` is done, its events stored and placed (it throws what failed inside). */
  withTx<R>(db: Db, fn: (tx: Tx) => Promise<R>): Promise<{ result: R; touched: ReadonlySet<string> }>;
  /** Tells other processes, inside the transaction, which collections it wrote. */
  publishIn(db: Db, touched: readonly string[]): Promise<void>;
  /** Counts this process's committed write of these collections. */
  wrote(touched: readonly string[]): void;
}

/**
 * The PostgreSQL outbox: events in the order of their places (see the cursor above), routing by one process
 * at a time (the `outbox` row locked FOR UPDATE SKIP LOCKED), deliveries claimed by one process
 * each (FOR UPDATE SKIP LOCKED, then a lease in the row that runs out by the database's clock).
 */
export class PgOutbox implements Outbox {
  private readonly horizon: EventHorizon;

  constructor(private readonly deps: PgOutboxDeps) {
    this.horizon = new EventHorizon(deps.read);
  }

  async eventsAfter(cursor: string | null, limit: number, owner?: number): Promise<PlacedEvent[]> {
    return eventsAfterIn(this.deps.read, cursor, await this.horizon.current(), limit, owner);
  }

  async cursorOf(eventId: string): Promise<string | null> {
    const { rows } = await this.deps.read<{ pos: string | null }>('SELECT pos::text AS pos FROM events WHERE k_event_id = $1 AND pos IS NOT NULL ORDER BY id DESC LIMIT 1', [eventId]);
    return rows[0]?.pos ?? null;
  }

  async endCursor(): Promise<string> {
    return String(await this.horizon.end(END_WAIT_MS));
  }

  async route(limit: number, fn: (tx: Tx, events: readonly EventRecord[]) => Promise<void>): Promise<number | null> {
    // A read first: a server with nothing to route writes nothing (no transaction every sweep).
    const upTo = await this.horizon.current();
    const { rows: ahead } = await this.deps.read<{ more: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM events WHERE pos > coalesce((SELECT (data ->> 'routed')::bigint FROM ${OUTBOX_COLLECTION} WHERE id = 1), 0) AND pos <= $1::bigint) AS more`,
      [String(upTo)],
    );
    if (!ahead[0]?.more) return 0;
    const outcome = await this.deps.inTransaction(async (db) => {
      let { rows } = await db<{ data: { routed?: string } }>(`SELECT data FROM ${OUTBOX_COLLECTION} WHERE id = 1 FOR UPDATE SKIP LOCKED`);
      if (!rows[0]) {
        // Locked by another router, or missing (a fresh or replaced store): inserting tells which.
        ({ rows } = await db<{ data: { routed?: string } }>(`INSERT INTO ${OUTBOX_COLLECTION} (id, data) VALUES (1, '{}') ON CONFLICT (id) DO NOTHING RETURNING data`));
        if (!rows[0]) return null;
      }
      const events = await eventsAfterIn(db, rows[0].data.routed ?? null, upTo, limit);
      if (events.length === 0) return { n: 0, touched: [] as string[] };
      const { touched } = await this.deps.withTx(db, (tx) => fn(tx, events.map((e) => e.event)));
      await db(`UPDATE ${OUTBOX_COLLECTION} SET data = jsonb_set(data, '{routed}', to_jsonb($1::text)) WHERE id = 1`, [events.at(-1)!.cursor]);
      const written = [...touched];
      if (written.length > 0) await this.deps.publishIn(db, written);
      return { n: events.length, touched: written };
    });
    if (outcome === null) return null;
    this.deps.wrote(outcome.touched);
    return outcome.n;
  }

  async claimDeliveries(now: number, leaseMs: number, limit: number, run = 1): Promise<StoredRecord[]> {
    if (limit <= 0) return [];
    const { rows: due } = await this.deps.read<{ some: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${DELIVERIES_COLLECTION} WHERE k_queue IS NOT NULL AND (data ->> 'nextAt')::bigint <= $1::bigint) AS some`,
      [now],
    );
    if (!due[0]?.some) return [];
    const lease = randomUUID();
    return this.deps.inTransaction(async (db) => {
      const { rows } = await db<Row>(
        `WITH heads AS (SELECT DISTINCT ON (k_queue) id FROM ${DELIVERIES_COLLECTION} WHERE k_queue IS NOT NULL ORDER BY k_queue, id)
         SELECT ${ROW_COLUMNS} FROM ${DELIVERIES_COLLECTION} t JOIN heads h ON h.id = t.id
         WHERE t.k_queue IS NOT NULL
           AND (t.data ->> 'nextAt')::bigint <= $1::bigint
           AND coalesce((t.data ->> 'leaseUntil')::bigint, 0) < (extract(epoch FROM clock_timestamp()) * 1000)::bigint
           AND (coalesce((t.data ->> 'manual')::boolean, false)
             OR EXISTS (SELECT 1 FROM webhooks w WHERE w.id = (t.data ->> 'webhookId')::bigint AND coalesce((w.data ->> 'active')::boolean, true)))
         ORDER BY t.id LIMIT $2
         FOR UPDATE OF t SKIP LOCKED`,
        [now, limit],
      );
      if (rows.length === 0) return [];
      const ids = rows.map((r) => Number(r.id));
      if (run > 1) ids.push(...(await followers(db, ids, now, run - 1)));
      const { rows: leased } = await db<Row>(
        `UPDATE ${DELIVERIES_COLLECTION} t SET data = t.data || jsonb_build_object('lease', $2::text, 'leaseUntil', (extract(epoch FROM clock_timestamp()) * 1000)::bigint + $3::bigint)
         WHERE t.id = ANY($1::bigint[]) RETURNING ${ROW_COLUMNS}`,
        [ids, lease, Math.round(leaseMs)],
      );
      return leased.map((r) => recordOf<StoredRecord>(r)).sort((a, b) => a.id - b.id);
    });
  }

  async prune(before: string): Promise<void> {
    const { rows } = await this.deps.read<{ old: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${DELIVERIES_COLLECTION} WHERE k_created < $1) OR EXISTS (SELECT 1 FROM ${EVENTS_COLLECTION} WHERE k_created < $1) AS old`,
      [before],
    );
    if (!rows[0]?.old) return;
    await this.deps.inTransaction(async (db) => {
      await db(`DELETE FROM ${DELIVERIES_COLLECTION} WHERE k_created < $1`, [before]);
      await db(`DELETE FROM ${EVENTS_COLLECTION} WHERE k_created < $1`, [before]);
    });
  }
}
