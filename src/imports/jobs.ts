import { formatDateTime } from '../clock.ts';
import type { Services, UserRecord } from '../resources/define.ts';
import type { Tx } from '../store/store.ts';
import { ImportFileError } from './csv.ts';
import type { ImportFormat } from './formats.ts';
import { IMPORT_PARTS, IMPORT_RESULTS, IMPORTS, partKey, REPORT_PIECE } from './job-rows.ts';
import type { ImportJob, ImportPart, ImportResults } from './job-rows.ts';
import type { RowResult } from './outcome.ts';
import { sourceRows } from './source-rows.ts';

/** Characters per stored piece of an uploaded file: a job reads its file a piece at a time. */
export const PART_CHARS = 256 * 1024;

/**
 * A text as the pieces a reader of an import file takes. Between two pieces the event loop serves
 * what waits: reading a 32 MB upload through is about 2 s of CPU, in steps of ~15 ms this way.
 */
export async function* piecesOf(text: string, size = PART_CHARS): AsyncGenerator<string> {
  for (let at = 0; at < text.length; at += size) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    yield text.slice(at, at + size);
  }
}

/** How many rows an import file has, reading it through (ImportFileError when it cannot be read: nothing is stored then). */
export async function countRows(format: ImportFormat, pieces: AsyncIterable<string>, now: number): Promise<number> {
  let n = 0;
  for await (const _row of sourceRows(format, pieces, now)) n++;
  return n;
}

/** Jobs a user may have queued or running at once: each holds its file in the store until it ends. */
export const MAX_OPEN_JOBS = 3;

/** How long a user told to wait for one of their imports to end is asked to wait, seconds (Retry-After). */
export const OPEN_JOBS_RETRY_AFTER = 10;

/** The user has MAX_OPEN_JOBS imports queued or running: a 429 with Retry-After, nothing stored. */
export class TooManyImportsError extends Error {}

/**
 * Stores a new import job for `user` with its file, in one transaction, queued to run now. The
 * file is read through first: one the format cannot read is refused (ImportFileError) before
 * anything is stored, and the job knows its number of rows from the start. A user with
 * MAX_OPEN_JOBS jobs not ended yet gets TooManyImportsError.
 */
export async function createImportJob(s: Pick<Services, 'store' | 'clock'>, user: UserRecord, input: { format: ImportFormat; dryRun: boolean; text: string }): Promise<ImportJob> {
  const now = s.clock.now();
  const total = await countRows(input.format, piecesOf(input.text), now);
  if (total === 0) throw new ImportFileError(`The file has no rows: expected ${input.format.label}.`);
  return s.store.transaction(async (tx) => {
    const open = (state: string) => tx.count(IMPORTS, { owner: user.id, conditions: [{ field: 'state', equals: state }] });
    if ((await open('queued')) + (await open('running')) >= MAX_OPEN_JOBS) throw new TooManyImportsError(`You have ${MAX_OPEN_JOBS} imports queued or running: send this one once one of them has ended.`);
    let parts = 0;
    const job = await tx.insert(IMPORTS, {
      userId: user.id,
      format: input.format.name,
      dryRun: input.dryRun,
      state: 'queued' as const,
      total,
      done: 0,
      created: 0,
      skipped: 0,
      refused: 0,
      parts: Math.ceil(input.text.length / PART_CHARS),
      due: now,
      holder: null,
      attempts: 0,
      message: null,
      date: formatDateTime(now),
      started: null,
      finished: null,
    } satisfies Omit<ImportJob, 'id'>);
    for await (const text of piecesOf(input.text)) await tx.insert(IMPORT_PARTS, { userId: user.id, job: job.id, n: parts++, text } satisfies Omit<ImportPart, 'id'>);
    return job;
  });
}

/** The pieces of a job's file, read from the store one at a time. */
export async function* jobFile(s: Pick<Services, 'store'>, job: ImportJob): AsyncGenerator<string> {
  for (let n = 0; n < job.parts; n++) {
    const part = await s.store.lookup<ImportPart>(IMPORT_PARTS, 'part', partKey(job.id, n));
    if (!part) throw new ImportFileError('The file of this import is gone.');
    yield part.text;
  }
}

/** Removes the stored file of a job (it ended), in `tx`. */
export async function dropJobFile(tx: Tx, job: ImportJob): Promise<void> {
  for (let n = 0; n < job.parts; n++) {
    const part = await tx.lookup(IMPORT_PARTS, 'part', partKey(job.id, n));
    if (part) await tx.remove(IMPORT_PARTS, part.id);
  }
}

/** Adds rows to a job's stored report, in `tx`: each to the piece of REPORT_PIECE rows it falls in. */
export async function appendReport(tx: Tx, job: ImportJob, results: readonly RowResult[]): Promise<void> {
  const byPiece = new Map<number, RowResult[]>();
  for (const r of results) {
    const n = Math.floor((r.row - 1) / REPORT_PIECE);
    byPiece.set(n, [...(byPiece.get(n) ?? []), r]);
  }
  for (const [n, rows] of byPiece) {
    const piece = await tx.lookup<ImportResults>(IMPORT_RESULTS, 'part', partKey(job.id, n));
    if (piece) await tx.update<ImportResults>(IMPORT_RESULTS, piece.id, { rows: [...piece.rows, ...rows] });
    else await tx.insert(IMPORT_RESULTS, { userId: job.userId, job: job.id, n, rows } satisfies Omit<ImportResults, 'id'>);
  }
}

/** Rows `offset + 1` to `offset + limit` of a job's report (as far as it goes). */
export async function reportRows(s: Pick<Services, 'store'>, job: ImportJob, offset: number, limit: number): Promise<RowResult[]> {
  const last = Math.min(job.done, offset + limit);
  const out: RowResult[] = [];
  for (let n = Math.floor(offset / REPORT_PIECE); n * REPORT_PIECE < last; n++) {
    const piece = await s.store.lookup<ImportResults>(IMPORT_RESULTS, 'part', partKey(job.id, n));
    for (const r of piece?.rows ?? []) if (r.row > offset && r.row <= last) out.push(r);
  }
  return out;
}
