import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Logger } from '../../log.ts';
import type { LedgerState } from '../store.ts';
import { writeAtomically } from './atomic-file.ts';

// Off the event loop: 16 MiB take tens of milliseconds. Bits set while it runs are harmless either way.
const gzipped = promisify(gzip);
const gunzipped = promisify(gunzip);

/**
 * Reads the kept visitor ledger: a JSON header line (day, salt) and the filter's bits, gzipped (a
 * quiet day's 16 MiB are nearly all zeros). A missing or damaged file only means today's visitors
 * are counted afresh, so it is a warning, never a refusal to start.
 */
export async function loadLedgerFile(file: string, log: Logger): Promise<LedgerState | null> {
  let bytes: Buffer;
  try {
    bytes = await gunzipped(await readFile(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('the visitor ledger file is unreadable: today\'s visitors are counted afresh', { file, error: String(err) });
    return null;
  }
  const end = bytes.indexOf(10);
  try {
    const head = JSON.parse(bytes.subarray(0, end).toString('utf8')) as { day?: unknown; salt?: unknown };
    if (end < 0 || typeof head.day !== 'string' || typeof head.salt !== 'string') throw new Error('no header');
    const bits = bytes.subarray(end + 1);
    return { day: head.day, salt: head.salt, bits: bits.length > 0 ? new Uint8Array(bits) : null };
  } catch (err) {
    log.warn('the visitor ledger file is unreadable: today\'s visitors are counted afresh', { file, error: String(err) });
    return null;
  }
}

/** Writes the ledger atomically: temp file, fsync, rename, fsync of the directory. */
export async function saveLedgerFile(file: string, state: LedgerState): Promise<void> {
  const head = Buffer.from(`${JSON.stringify({ day: state.day, salt: state.salt })}\n`, 'utf8');
  await writeAtomically(file, [await gzipped(state.bits ? Buffer.concat([head, state.bits]) : head, { level: 1 })]);
}

/** The file beside the collections that keeps today's visitor ledger across restarts. */
export const LEDGER_FILE = 'visitors.bin';

/** The store's visitor ledger: the state last saved, in LEDGER_FILE (memory: until the process ends). */
export class KeptLedger {
  private constructor(
    private readonly file: string | null,
    private state: LedgerState | null,
  ) {}

  /** The ledger kept in `dir`, or none in memory (dir null). */
  static async open(dir: string | null, log: Logger): Promise<KeptLedger> {
    const file = dir === null ? null : join(dir, LEDGER_FILE);
    return new KeptLedger(file, file === null ? null : await loadLedgerFile(file, log));
  }

  /** The ledger kept for the day, if any. */
  load(): LedgerState | null {
    return this.state;
  }

  /** Keeps `state`, durably where there is a file. */
  async save(state: LedgerState): Promise<void> {
    this.state = state;
    if (this.file) await saveLedgerFile(this.file, state);
  }
}
