import type { Clock } from '../clock.ts';
import { formatDateTime } from '../clock.ts';
import type { Logger } from '../log.ts';
import { silentLogger } from '../log.ts';
import type { StoredRecord, Store } from '../store/store.ts';

/** The collection of the audit log. */
export const AUDIT = 'audit';

/** One write as the audit log keeps it. */
export interface AuditEntry {
  /** Who wrote: the key's owner. */
  userId: number;
  /** With which scoped key (its id, never the secret); null: the account key. */
  keyId: number | null;
  /** When, `YYYY-MM-DD HH:MM:SS` UTC. */
  date: string;
  method: string;
  /** The route's path template (`/api/url/:id/update`), never the request's path or query. */
  route: string;
  /** The area (`links`, `websites`) or admin collection (`users`) written. */
  resource: string;
  /** The record the route names, or the one a create made; null when none. */
  resourceId: number | null;
  /** The outcome: the API's status (the error's, under ERROR_STATUS=200 too). */
  status: number;
  /** The client address (TRUST_PROXY applied). */
  ip: string;
}

/** A stored audit entry. */
export type AuditRecord = StoredRecord & AuditEntry;

/** Entries held in memory at most while the store cannot take them; past it the oldest go (with a warning). */
export const MAX_PENDING_ENTRIES = 10_000;
/** How often old entries are looked for: once soon after the start, then every hour. */
export const PRUNE_FIRST_MS = 10_000;
export const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** Entries read and removed per step of a prune. */
const PRUNE_BATCH = 500;

/** How an AuditLog is built. */
export interface AuditLogOptions {
  clock: Clock;
  log?: Logger;
  /** Delay between the first buffered entry and the batched write (default 1000 ms). */
  flushMs?: number;
  /** Days entries are kept (AUDIT_RETENTION_DAYS); 0 keeps them forever. */
  retentionDays?: number;
  /** When `startPruning` first prunes, and then how often (default PRUNE_FIRST_MS, PRUNE_EVERY_MS). */
  pruneMs?: { first: number; every: number };
}

/**
 * The audit log of writes, written as statistics are: a request adds its entry to a buffer in
 * memory and is answered without waiting; a second later every buffered entry is stored in one
 * transaction (and on close). A flush that fails keeps its entries for the next one. A crash loses
 * at most the last second's entries, as it loses the last second's clicks; in exchange a write
 * costs the API no round trip (bench/audit.ts compares the two).
 */
export class AuditLog {
  private pending: AuditEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private pruner: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private dropped = 0;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly flushMs: number;
  private readonly retentionDays: number;
  private readonly pruneMs: { first: number; every: number };

  constructor(
    private readonly store: Store,
    options: AuditLogOptions,
  ) {
    this.clock = options.clock;
    this.log = options.log ?? silentLogger;
    this.flushMs = options.flushMs ?? 1000;
    this.retentionDays = options.retentionDays ?? 0;
    this.pruneMs = options.pruneMs ?? { first: PRUNE_FIRST_MS, every: PRUNE_EVERY_MS };
    store.beforeClose(() => this.close());
  }

  /** Buffers one entry (`date` defaults to now); stored within `flushMs`. */
  record(entry: Omit<AuditEntry, 'date'> & { date?: string }): void {
    this.pending.push({ ...entry, date: entry.date ?? formatDateTime(this.clock.now()) });
    if (this.pending.length > MAX_PENDING_ENTRIES) {
      this.pending.splice(0, this.pending.length - MAX_PENDING_ENTRIES);
      if (this.dropped++ === 0) this.log.warn(`the audit log cannot be stored: more than ${MAX_PENDING_ENTRIES} entries wait, the oldest are dropped`);
    }
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** Stores every buffered entry now; resolves when they are stored (or kept for later after a failure). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.write(batch).finally(() => (this.flushing = null));
    await this.flushing;
  }

  private async write(batch: AuditEntry[]): Promise<void> {
    try {
      await this.store.transaction(async (tx) => {
        // A user deleted since its request took its entries along: they are not written back.
        const users = new Map<number, boolean>();
        for (const id of new Set(batch.map((e) => e.userId))) users.set(id, (await tx.get('users', id)) !== undefined);
        // One write for the whole batch (one statement on PostgreSQL), not one per entry.
        const kept = batch.filter((entry) => users.get(entry.userId));
        if (kept.length > 0) await tx.insertMany(AUDIT, kept);
      });
      this.dropped = 0;
    } catch (err) {
      this.pending = [...batch, ...this.pending].slice(-MAX_PENDING_ENTRIES);
      this.log.warn('the audit log could not be stored; trying again', { entries: batch.length, error: err instanceof Error ? err.message : String(err) });
      this.timer ??= setTimeout(() => void this.flush(), this.flushMs * 5).unref();
    }
  }

  /** Removes entries older than the retention (none when it is 0); returns how many. Entries come in id order, oldest first, so it walks from the lowest id. */
  async prune(now = this.clock.now()): Promise<number> {
    if (this.retentionDays <= 0) return 0;
    const cutoff = formatDateTime(now - this.retentionDays * 86_400_000);
    let removed = 0;
    for (;;) {
      const { items } = await this.store.find<AuditRecord>(AUDIT, { sort: { field: 'id', direction: 'asc' }, limit: PRUNE_BATCH });
      const old = items.filter((e) => e.date < cutoff).map((e) => e.id);
      if (old.length > 0) removed += await this.store.transaction((tx) => tx.removeWhere(AUDIT, { ids: old }));
      if (old.length < PRUNE_BATCH) return removed;
    }
  }

  /** Prunes soon, then every hour, until closed (the server's; tests call `prune`). */
  startPruning(): void {
    if (this.retentionDays <= 0 || this.pruner) return;
    const run = (next: number) => {
      this.pruner = setTimeout(() => {
        void this.prune().then(
          (n) => n > 0 && this.log.info(`audit log: ${n} entries older than ${this.retentionDays} days removed`),
          (err: unknown) => this.log.warn('audit log: old entries could not be removed; trying again in an hour', { error: err instanceof Error ? err.message : String(err) }),
        ).finally(() => this.pruner && run(this.pruneMs.every));
      }, next).unref();
    };
    run(this.pruneMs.first);
  }

  /** Drops what is buffered, unwritten (test mode's reset replaces the data anyway). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
  }

  /** Stops pruning and stores what is buffered (before the store closes). */
  async close(): Promise<void> {
    if (this.pruner) clearTimeout(this.pruner);
    this.pruner = null;
    await this.flush();
  }
}
