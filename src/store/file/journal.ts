import { open, readdir, truncate, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonElements, Turns } from '../../turns.ts';
import { DataFileError, syncDir } from './atomic-file.ts';
import { FILE_MODE } from './permissions.ts';

/** One operation inside a journal entry: a whole record put, or a removal by id. */
export type JournalOp =
  | { c: string; op: 'put'; r: { id: number } & Record<string, unknown> }
  | { c: string; op: 'del'; id: number };

/** One committed transaction: its sequence number and its operations, written as one line. */
export interface JournalEntry {
  s: number;
  ops: JournalOp[];
}

/**
 * An entry's line, as append makes it, made in slices (turns.ts): a busy second's statistics flush
 * puts thousands of days, whose JSON in one piece held the event loop for several milliseconds.
 */
export async function journalLine(entry: JournalEntry, turns = new Turns()): Promise<string> {
  return `{"s":${JSON.stringify(entry.s)},"ops":[${await jsonElements(entry.ops, (op) => op, turns)}]}\n`;
}

const PREFIX = 'journal-';
const SUFFIX = '.ndjson';

/** Whether a file name in the data directory is a journal segment. */
export function isJournalSegment(name: string): boolean {
  return name.startsWith(PREFIX) && name.endsWith(SUFFIX);
}

function segmentName(firstSeq: number): string {
  return `${PREFIX}${String(firstSeq).padStart(16, '0')}${SUFFIX}`;
}

interface Waiter {
  line: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The append-only journal: every transaction is a line, appended and fdatasynced before it is
 * acknowledged. Lines that arrive while a flush is on disk wait and go out together in the next
 * one (group commit), so one fsync serves many requests.
 */
export class Journal {
  private fh: FileHandle | null = null;
  private current = '';
  private queue: Waiter[] = [];
  private running: Promise<void> | null = null;
  private rotation: { firstSeq: number; resolve: (old: string[]) => void; reject: (e: unknown) => void } | null = null;
  private segments: string[] = [];
  /** Counters: entries written in how many fsynced flushes, and bytes held (segments read at open included). */
  readonly stats = { entries: 0, flushes: 0, bytes: 0 };

  private constructor(private readonly dir: string) {}

  /** Reads every segment in order. A torn last line (a crash mid-append) is cut off; any other bad line is corruption. */
  static async open(dir: string): Promise<{ journal: Journal; entries: JournalEntry[] }> {
    const journal = new Journal(dir);
    const names = (await readdir(dir)).filter(isJournalSegment).sort();
    const entries: JournalEntry[] = [];
    for (const name of names) {
      const file = join(dir, name);
      const whole = await readLines(file, (line, n) => {
        if (line === '') return;
        try {
          const entry = JSON.parse(line) as JournalEntry;
          if (!Number.isInteger(entry.s) || !Array.isArray(entry.ops)) throw new Error('not a journal entry');
          entries.push(entry);
        } catch (err) {
          throw new DataFileError(file, `line ${n}: ${(err as Error).message}`);
        }
      });
      journal.stats.bytes += whole.bytes;
      // Every acknowledged entry ends with a newline; bytes after the last one are a write torn by a
      // crash (never acknowledged). Cut them off, or the next append would be glued onto them.
      if (whole.torn) await truncate(file, whole.bytes);
      journal.segments.push(file);
    }
    return { journal, entries };
  }

  /** Opens a new segment whose first entry will be `firstSeq`; appends go there from now on. */
  async start(firstSeq: number): Promise<void> {
    await this.openSegment(firstSeq);
  }

  /** Appends one entry (its line, when made already: journalLine); resolves once it is on disk. */
  append(entry: JournalEntry, line = JSON.stringify(entry) + '\n'): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stats.bytes += line.length;
      this.queue.push({ line, resolve, reject });
      this.kick();
    });
  }

  /** Starts a new segment at `firstSeq` between two flushes; resolves with the older segments' paths. */
  rotate(firstSeq: number): Promise<string[]> {
    return new Promise((resolve, reject) => {
      this.rotation = { firstSeq, resolve, reject };
      this.kick();
    });
  }

  /** Deletes segments a snapshot has made redundant. */
  async remove(paths: string[]): Promise<void> {
    for (const p of paths) await unlink(p).catch(() => {});
    this.segments = this.segments.filter((s) => !paths.includes(s));
    await syncDir(this.dir);
  }

  /** Waits for every queued append, then closes the segment. */
  async close(): Promise<void> {
    while (this.running) await this.running;
    await this.fh?.close();
    this.fh = null;
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.loop().finally(() => {
      this.running = null;
      if (this.queue.length > 0 || this.rotation) this.kick();
    });
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0 || this.rotation) {
      if (this.rotation) {
        const { firstSeq, resolve, reject } = this.rotation;
        this.rotation = null;
        try {
          await this.openSegment(firstSeq);
          resolve(this.segments.filter((s) => s !== this.current));
        } catch (err) {
          reject(err);
        }
        continue;
      }
      const batch = this.queue;
      this.queue = [];
      try {
        if (!this.fh) throw new Error('journal is closed');
        await this.fh.write(batch.map((w) => w.line).join(''));
        await this.fh.datasync();
        this.stats.flushes++;
        this.stats.entries += batch.length;
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }

  private async openSegment(firstSeq: number): Promise<void> {
    const file = join(this.dir, segmentName(firstSeq));
    const fh = await open(file, 'a', FILE_MODE);
    await syncDir(this.dir);
    const old = this.fh;
    this.fh = fh;
    this.current = file;
    if (!this.segments.includes(file)) this.segments.push(file);
    await old?.close();
  }

  /** The segment appends currently go to (for tests and diagnostics). */
  get currentSegment(): string {
    return this.current;
  }
}

/**
 * Calls `onLine` with each newline-terminated line of a file, read as a stream: a segment may be
 * longer than the longest string. Returns the bytes up to the last newline, and whether more
 * (a torn line) follows them.
 */
async function readLines(file: string, onLine: (line: string, n: number) => void): Promise<{ bytes: number; torn: boolean }> {
  const fh = await open(file, 'r');
  let pending: Buffer[] = [];
  let bytes = 0;
  let n = 0;
  // A newline byte never occurs inside a multi-byte UTF-8 character, so lines are cut as bytes and decoded whole.
  for await (const chunk of fh.createReadStream({ highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      bytes += line.length + 1;
      onLine(line.toString('utf8'), ++n);
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  return { bytes, torn: pending.length > 0 };
}
