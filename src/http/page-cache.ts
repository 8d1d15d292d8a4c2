import type { Services } from '../resources/define.ts';

/** At most this many characters of serialised pages are kept per list route (a 25-entry page is about 3,000); 10 routes: 20M characters (20-40 MB) in all. */
export const MAX_CACHED_CHARS = 2_000_000;

/**
 * Serialised list pages of one route, by user and query string, kept while nothing they can be
 * built from changes. A list page is a pure function of the store's records, the statistics
 * counters, the configuration and the user: any write to the store (by any process sharing it: the
 * store's revision) or any event counted here starts a fresh cache, so an answer from it is byte
 * for byte the one a rebuild would give (other processes' counts show once flushed). Repeated reads
 * of an idle collection (dashboards polling, tests listing) then skip the serialisation, which is
 * most of a list request's cost.
 */
export class PageCache {
  private readonly pages = new Map<string, string>();
  private chars = 0;
  private revision = -1;
  private generation = -1;

  constructor(
    private readonly s: Pick<Services, 'store' | 'counters'>,
    private readonly maxChars = MAX_CACHED_CHARS,
  ) {}

  /** The page under `key` if a current one is held, without waiting: a hit answers in one synchronous step. */
  kept(key: string): string | undefined {
    this.renew();
    return this.pages.get(key);
  }

  /** The page under `key`, built (and kept) by `build` unless a current one is held. */
  async get(key: string, build: () => Promise<string>): Promise<string> {
    this.renew();
    let page = this.pages.get(key);
    if (page === undefined) {
      page = await build();
      // A page built while something changed may be of either state: answered, never kept. A page
      // larger than the whole budget is not kept; otherwise the oldest go first (a Map keeps insertion order).
      if (this.current() && page.length <= this.maxChars) {
        for (const [oldKey, old] of this.pages) {
          if (this.chars + page.length <= this.maxChars) break;
          this.pages.delete(oldKey);
          this.chars -= old.length;
        }
        this.pages.set(key, page);
        this.chars += page.length;
      }
    }
    return page;
  }

  // Starts afresh when what the pages are built from changed.
  private renew(): void {
    if (this.current()) return;
    this.pages.clear();
    this.chars = 0;
    this.revision = this.s.store.revision();
    this.generation = this.s.counters.generation;
  }

  private current(): boolean {
    return this.s.store.revision() === this.revision && this.s.counters.generation === this.generation;
  }
}
