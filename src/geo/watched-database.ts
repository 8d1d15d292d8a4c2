import { statSync, unwatchFile, watchFile } from 'node:fs';
import type { Stats } from 'node:fs';
import type { Logger } from '../log.ts';
import { loadReader, loadReaderSync } from './mmdb.ts';
import type { GeoReader } from './mmdb.ts';

/** How often the file's modification time and size are looked at, ms. */
export const WATCH_INTERVAL_MS = 5000;

const stampOf = (st: Stats) => `${st.ino}:${st.size}:${st.mtimeMs}`;

/** Raised at start when GEOIP_DATABASE cannot be used; its message is one line naming the setting and the path. */
export class GeoDatabaseError extends Error {
  override name = 'GeoDatabaseError';
}

/**
 * A database file the admin provides (GEOIP_DATABASE), read again when it changes. The new file is
 * read and checked off the request path, then replaces the reader in one assignment, so a lookup
 * sees the old database or the new one, never a mix, and never waits. A new file that is missing or
 * broken (a half-copied download) keeps the old reader and logs one line; it is tried again when it
 * changes again. Polled with fs.watchFile: replacing the file by a rename (what geoipupdate does)
 * is seen as well as writing it in place.
 */
export class WatchedDatabase {
  private reader: GeoReader;
  private stamp = '';
  private loading: Promise<void> | null = null;
  private again = false;
  // A file written in place changes more than once before it is whole (truncated, then written):
  // one line says it cannot be used, until a copy can be or the file goes.
  private unusable = false;
  private readonly onChange = (current: Stats) => this.changed(current);

  private constructor(
    readonly path: string,
    reader: GeoReader,
    private readonly log: Logger,
    intervalMs: number,
  ) {
    this.reader = reader;
    this.stamp = stampOf(statSync(path));
    // Not persistent: the watch must not keep a finished process (a CLI command, a test) alive.
    watchFile(path, { interval: intervalMs, persistent: false }, this.onChange);
  }

  /** Loads `path` now (the start waits for it) and watches it; a file that cannot be used stops the start. */
  static open(path: string, log: Logger, intervalMs = WATCH_INTERVAL_MS): WatchedDatabase {
    let reader: GeoReader;
    try {
      reader = loadReaderSync(path);
    } catch (err) {
      throw new GeoDatabaseError(`GEOIP_DATABASE ${path} cannot be used: ${reasonOf(err)}. Point it at a MaxMind-format City database (.mmdb), or leave it unset for countries only.`);
    }
    return new WatchedDatabase(path, reader, log, intervalMs);
  }

  /** The reader of the last good file. */
  get current(): GeoReader {
    return this.reader;
  }

  /** Resolves once a reload under way (if any) has ended: tests and shutdown wait on it. */
  async settled(): Promise<void> {
    while (this.loading) await this.loading;
  }

  /** Stops watching the file. */
  close(): void {
    unwatchFile(this.path, this.onChange);
  }

  private changed(current: Stats): void {
    // A stat of a file that is gone has every field 0.
    if (current.nlink === 0 && current.ino === 0) {
      this.log.warn(`GEOIP_DATABASE ${this.path} is gone; still using the database read before`);
      this.stamp = '';
      this.unusable = false;
      return;
    }
    const stamp = stampOf(current);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = this.reload().finally(() => {
      this.loading = null;
    });
  }

  private async reload(): Promise<void> {
    do {
      this.again = false;
      try {
        this.reader = await loadReader(this.path);
        this.unusable = false;
        this.log.info(`GEOIP_DATABASE ${this.path} read again (${this.reader.metadata.databaseType})`);
      } catch (err) {
        if (!this.unusable) this.log.warn(`GEOIP_DATABASE ${this.path} changed but cannot be used (${reasonOf(err)}); still using the database read before`);
        this.unusable = true;
      }
    } while (this.again);
  }
}

function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOENT') return 'no such file';
  if (e?.code === 'EACCES') return 'this user may not read it';
  if (e?.code === 'EISDIR') return 'it is a directory';
  return (e?.message ?? String(err)).split('\n')[0]!.slice(0, 200);
}
