import type { Clock } from '../clock.ts';
import { formatDateTime } from '../clock.ts';
import type { Logger } from '../log.ts';
import { silentLogger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { API_KEYS } from './api-key-record.ts';
import type { ApiKeyRecord } from './api-key-record.ts';

/** How often the keys' `lastUsed` are written: at most once per key in this time, all keys in one transaction. */
export const KEY_USE_FLUSH_MS = 60_000;

/**
 * When each scoped key last authenticated a request. A request only notes the time in memory (a
 * map set); the times are written once a minute, every key used meanwhile in one transaction, and
 * on close. Reads (`lastUsed`) add what is noted to what is stored. A write of the keys makes every
 * process forget the keys it holds (key-index.ts), so one write a minute, not one per request.
 */
export class KeyUses {
  private pending = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private readonly flushMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly log: Logger = silentLogger,
    options: { flushMs?: number } = {},
  ) {
    this.flushMs = options.flushMs ?? KEY_USE_FLUSH_MS;
    store.beforeClose(() => this.flush());
  }

  /** Notes that key `id` authenticated a request now. */
  note(id: number): void {
    this.pending.set(id, this.clock.now());
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** When `key` was last used: the later of what is stored and what is noted. */
  lastUsed(key: ApiKeyRecord): string | null {
    const noted = this.pending.get(key.id);
    const at = noted === undefined ? null : formatDateTime(noted);
    return at !== null && (key.lastUsed === null || at > key.lastUsed) ? at : key.lastUsed;
  }

  /** Writes what is noted; a failed write keeps it for the next flush. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const taking = this.pending;
    this.pending = new Map();
    try {
      await this.store.transaction(async (tx) => {
        for (const [id, ms] of taking) {
          const at = formatDateTime(ms);
          const key = await tx.get<ApiKeyRecord>(API_KEYS, id);
          // A key revoked meanwhile stays gone; another process may have written a later time.
          if (key && (key.lastUsed === null || key.lastUsed < at)) await tx.update<ApiKeyRecord>(API_KEYS, id, { lastUsed: at });
        }
      });
    } catch (err) {
      for (const [id, ms] of taking) if (!((this.pending.get(id) ?? 0) > ms)) this.pending.set(id, ms);
      this.log.warn('the last use of API keys could not be stored; trying again in a minute', { error: err instanceof Error ? err.message : String(err) });
      this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
    }
  }

  /** Forgets what is noted (test mode's reset). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = new Map();
  }
}
