import type { Logger } from '../../log.ts';
import type { Collection } from './collection.ts';
import type { Journal } from './journal.ts';

/** When to snapshot: after this many journal entries, or this many journal bytes (statistics days reach it first). */
export interface SnapshotPolicy {
  every: number;
  bytes: number;
}

/**
 * The file store's snapshots: every changed collection written to its JSON file (atomically), then
 * the journal segments those files now cover removed. One at a time; one is started, in the
 * background, once the journal has grown by the policy's entries or bytes since the last.
 */
export class Snapshots {
  private entries = 0;
  private bytesAtLast = 0;
  private running: Promise<void> | null = null;

  constructor(
    private readonly journal: Journal,
    private readonly collections: ReadonlyMap<string, Collection>,
    private readonly policy: SnapshotPolicy,
    /** The sequence number of the last journalled entry. */
    private readonly seq: () => number,
    private readonly log: Logger,
  ) {}

  /** Counts the entries replayed from the journal at open (not in any file yet). */
  replayed(entries: number): void {
    this.entries += entries;
  }

  /** Counts an entry just journalled, and starts a snapshot when the journal has grown enough. */
  journalled(): void {
    if (++this.entries >= this.policy.every || this.journal.stats.bytes - this.bytesAtLast >= this.policy.bytes) this.soon();
  }

  private soon(): void {
    if (this.running) return;
    this.take().catch((err: unknown) => this.log.error('snapshot failed', { error: String(err) }));
  }

  /** Writes every changed collection to its JSON file and drops the journal those files now cover. */
  async take(): Promise<void> {
    while (this.running) await this.running;
    const run = async () => {
      const seq = this.seq();
      this.entries = 0;
      this.bytesAtLast = this.journal.stats.bytes;
      const older = await this.journal.rotate(seq + 1);
      for (const col of this.collections.values()) {
        if (col.dirty) await col.save(seq);
      }
      await this.journal.remove(older);
    };
    this.running = run().finally(() => {
      this.running = null;
    });
    await this.running;
  }
}
