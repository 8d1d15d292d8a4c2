import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { formatDateTime } from '../clock.ts';
import type { Services, UserRecord } from '../resources/define.ts';
import { outsideStoreDeadline } from '../store/deadline.ts';
import type { Tx } from '../store/store.ts';
import { ImportFileError } from './csv.ts';
import { importEnded } from './finished.ts';
import { importFormat } from './formats.ts';
import { appendReport, dropJobFile, jobFile } from './jobs.ts';
import { dueKey, IMPORTS } from './job-rows.ts';
import type { ImportJob } from './job-rows.ts';
import { batchesOf, LinkImporter } from './link-importer.ts';
import { countOutcomes } from './outcome.ts';
import type { SourceRow } from './row-values.ts';
import { sourceRows } from './source-rows.ts';

/**
 * How long a process holds a job it took without writing to it: each batch renews the lease, and
 * a process that dies (kill -9) leaves it to run out, after which another process takes the job
 * up where the last committed batch ended.
 */
export const IMPORT_LEASE_MS = 15_000;

/** Times a job may be taken up (each start after a crash or a stop is one) before it is failed for good. */
export const MAX_ATTEMPTS = 10;

/** The job was taken over by another process (its lease ran out) or removed: this one stops running it. */
class LeaseLost extends Error {}

/** Whether a lease holder was a process of this host that no longer runs (its pid answers no signal). */
function goneHere(holder: string | null): boolean {
  const [host, pid] = holder?.split(':') ?? [];
  if (host !== hostname() || !pid || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The rows of `rows` after the first `done`: a job taken up again goes on after its last committed batch. */
async function* after(rows: AsyncIterable<SourceRow>, done: number): AsyncGenerator<SourceRow> {
  let n = 0;
  for await (const r of rows) if (++n > done) yield r;
}

/**
 * Runs import jobs in this process, one at a time: it takes the first due job (a transaction with
 * `takeDue`, so that processes sharing a PostgreSQL database never take the same one), runs it a
 * batch per transaction, each batch also writing the job's progress and report and renewing its
 * lease, and ends it (finished, or failed when its file cannot be read). `kick` starts it now (a
 * job was just queued); `poll` also looks every `ms` for jobs left by a process that died.
 */
export class ImportRunner {
  /** Who holds a lease: this process, told apart from its earlier lives and other hosts. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly s: Services) {}

  /** Runs every due job now, in the background (a run in progress goes on to the new one). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    // Nobody's request: the jobs' store calls get no request's deadline.
    this.running = outsideStoreDeadline(() => this.drain()).finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /**
   * Looks for due jobs every `ms` from now on. A job left running by a process that is gone is due
   * at once rather than when its lease ends: on a store one process has to itself (the JSON files)
   * any such job, elsewhere one whose holder was a process of this host that no longer exists.
   */
  async poll(ms: number): Promise<void> {
    await this.takeBackOrphans();
    this.timer = setInterval(() => this.kick(), ms);
    this.timer.unref();
    this.kick();
  }

  /** Resolves once nothing runs (tests: a job queued and kicked has run). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops taking jobs; a job running is left after its current batch, its lease given back so another process takes it at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }

  private async takeBackOrphans(): Promise<void> {
    const now = this.s.clock.now();
    const alone = !this.s.store.shared;
    await this.s.store.transaction(async (tx) => {
      const { items } = await tx.find<ImportJob>(IMPORTS, { conditions: [{ field: 'state', equals: 'running' }] });
      // Taking a job still held is harmless: its holder finds the lease gone at its next batch and stops.
      for (const job of items) if (alone || goneHere(job.holder)) await tx.update<ImportJob>(IMPORTS, job.id, { due: now, holder: null });
    });
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      let job: ImportJob | undefined;
      try {
        job = await this.claim();
        if (!job) return;
        await this.run(job);
      } catch (err) {
        if (err instanceof LeaseLost) continue;
        // The store failed (a database gone): the lease runs out and the job is taken up again.
        this.s.log.error('an import job failed to run; it is taken up again when its lease ends', { job: job?.id, error: String(err) });
        return;
      }
    }
  }

  /** Takes the first due job, holding its lease; undefined when none is due. */
  private claim(): Promise<ImportJob | undefined> {
    const now = this.s.clock.now();
    return this.s.store.transaction(async (tx) => {
      const job = await tx.takeDue<ImportJob>(IMPORTS, 'due', dueKey(now));
      if (!job) return undefined;
      if (job.attempts >= MAX_ATTEMPTS) {
        await this.end(tx, job, 'failed', `The import was interrupted ${job.attempts} times (the server stopped or failed while running it); it is not taken up again.`);
        return { ...job, state: 'failed' } as ImportJob;
      }
      return tx.update<ImportJob>(IMPORTS, job.id, { state: 'running', holder: this.holder, due: now + IMPORT_LEASE_MS, attempts: job.attempts + 1, started: job.started ?? formatDateTime(now) });
    });
  }

  /** The job, read in `tx` and locked, if this process still holds it. */
  private async held(tx: Tx, id: number): Promise<ImportJob> {
    const job = await tx.getForUpdate<ImportJob>(IMPORTS, id);
    if (!job || job.state !== 'running' || job.holder !== this.holder) throw new LeaseLost();
    return job;
  }

  private async run(claimed: ImportJob): Promise<void> {
    if (claimed.state !== 'running') return;
    const user = await this.s.store.get<UserRecord>('users', claimed.userId);
    const format = importFormat(claimed.format);
    if (!user || !format) return this.finish(claimed.id, 'failed', user ? `Unknown format ${claimed.format}.` : 'The user is gone.');
    const importer = new LinkImporter(this.s, { ...this.s, user, apiKey: null }, claimed.dryRun);
    try {
      const rows = after(sourceRows(format, jobFile(this.s, claimed), Date.parse(claimed.date.replace(' ', 'T') + 'Z')), claimed.done);
      for await (const batch of batchesOf(rows)) {
        if (this.stopped) return await this.giveBack(claimed.id);
        await importer.batch(batch, async (tx, results) => {
          const job = await this.held(tx, claimed.id);
          await appendReport(tx, job, results);
          const counts = countOutcomes({ created: job.created, skipped: job.skipped, refused: job.refused }, results);
          await tx.update<ImportJob>(IMPORTS, job.id, { ...counts, done: job.done + results.length, due: this.s.clock.now() + IMPORT_LEASE_MS });
        });
      }
    } catch (err) {
      if (!(err instanceof ImportFileError)) throw err;
      return this.finish(claimed.id, 'failed', err.message);
    }
    await this.finish(claimed.id, 'finished', null);
  }

  private async finish(id: number, state: 'finished' | 'failed', message: string | null): Promise<void> {
    await this.s.store.transaction(async (tx) => this.end(tx, await this.held(tx, id), state, message));
  }

  /** Ends a job in `tx`: its state, no more due, its file removed, and the end told (importEnded). */
  private async end(tx: Tx, job: ImportJob, state: 'finished' | 'failed', message: string | null): Promise<void> {
    const now = this.s.clock.now();
    await tx.update<ImportJob>(IMPORTS, job.id, { state, message, due: null, holder: null, finished: formatDateTime(now), ...(state === 'finished' ? { total: job.done } : {}) });
    await dropJobFile(tx, job);
    const { created, skipped, refused, total, done, userId, format, dryRun } = job;
    await importEnded(tx, this.s, { id: job.id, userId, format, dryRun, state, total: state === 'finished' ? done : total, created, skipped, refused, message });
  }

  /** Gives a job's lease back (this process stops): due now, for any process. */
  private async giveBack(id: number): Promise<void> {
    await this.s.store.transaction(async (tx) => {
      const job = await this.held(tx, id);
      await tx.update<ImportJob>(IMPORTS, job.id, { due: this.s.clock.now(), holder: null });
    });
  }
}
