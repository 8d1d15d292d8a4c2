import type { StoredRecord } from '../store.ts';

/**
 * The lookups the PostgreSQL store answers from memory, and how many answers each keeps. Two are
 * on every redirect: `domains.host` (the Host header → branded domain, nearly always "none") and
 * `links.alias` (domain + alias → link); one on every tracked event: `websites.receiving` (the
 * page's domain → the website receiving its events). Misses are kept too (null): the main host has
 * no domain row, a page of an untracked domain has no website, and asking PostgreSQL that on every
 * click or event would cost a round trip. Sizes bound the memory: a link record is about 1 KB in
 * memory, so 20,000 links ≈ 20 MB; host names and websites are few.
 */
export const CACHED_LOOKUPS: Readonly<Record<string, { index: string; maxEntries: number }>> = {
  links: { index: 'alias', maxEntries: 20_000 },
  domains: { index: 'host', maxEntries: 1_000 },
  websites: { index: 'receiving', maxEntries: 5_000 },
};

/**
 * A bounded LRU of one collection's lookups (index key → record or null), for the PostgreSQL store.
 *
 * Invalidation: the whole cache is dropped whenever the collection's `version` changes, i.e. on
 * every committed write to it, by this process or (heard through LISTEN/NOTIFY, change-feed.ts)
 * by any other sharing the schema; an answer read while a write committed is not kept (the version
 * is compared before and after the query). While notifications cannot be heard, the version moves
 * every 0.5 s, so nothing is answered from here that is older than that.
 */
export class LookupCache {
  private entries = new Map<string, StoredRecord | null>();
  private builtAt = -1;
  /** Queries under way, by key: a burst of requests for one uncached alias sends one query, not one each. */
  private readonly reading = new Map<string, { stamp: number; answer: Promise<StoredRecord | undefined> }>();

  constructor(
    readonly maxEntries: number,
    /** The collection's current version (PostgresStore.version). */
    private readonly version: () => number,
  ) {}

  /** The kept answer for `key` (null: kept as missing), or undefined when not kept or out of date. */
  get(key: string): StoredRecord | null | undefined {
    if (this.builtAt !== this.version()) {
      this.entries = new Map();
      this.builtAt = this.version();
      return undefined;
    }
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Most recently used goes last: a Map iterates in insertion order, so the first is the least recent.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** The version to pass to `set` for an answer about to be read. */
  stamp(): number {
    return this.version();
  }

  /** Keeps `record` (or its absence) under `key`, unless the collection changed since `stamp`. */
  set(key: string, record: StoredRecord | null, stamp: number): void {
    if (stamp !== this.version() || stamp !== this.builtAt) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, record);
  }

  /**
   * The answer for `key`: kept, or read by `read` and kept. A read under way is shared only if it
   * started at the current version, so nobody gets an answer from before a write it follows.
   */
  async through(key: string, read: () => Promise<StoredRecord | undefined>): Promise<StoredRecord | undefined> {
    const kept = this.get(key);
    if (kept !== undefined) return kept ?? undefined;
    const stamp = this.stamp();
    const under = this.reading.get(key);
    if (under && under.stamp === stamp) return under.answer;
    const answer = read();
    this.reading.set(key, { stamp, answer });
    try {
      const found = await answer;
      this.set(key, found ?? null, stamp);
      return found;
    } finally {
      if (this.reading.get(key)?.answer === answer) this.reading.delete(key);
    }
  }

  /** How many answers are kept now. */
  get size(): number {
    return this.entries.size;
  }
}
