import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { AuditLog } from '../audit/audit-log.ts';
import { DisabledUsers } from '../auth/disabled-users.ts';
import { KeyUses } from '../auth/key-uses.ts';
import { ApiError } from '../errors.ts';
import { memoryLimiters } from '../http/rate-limit.ts';
import { ImportFileError } from '../imports/csv.ts';
import { importEnded } from '../imports/finished.ts';
import { FORMAT_NAMES, importFormat } from '../imports/formats.ts';
import type { ImportFormat } from '../imports/formats.ts';
import { countRows } from '../imports/jobs.ts';
import { batchesOf, LinkImporter } from '../imports/link-importer.ts';
import { countOutcomes } from '../imports/outcome.ts';
import type { OutcomeCounts, RowResult } from '../imports/outcome.ts';
import { sourceRows } from '../imports/source-rows.ts';
import { silentLogger } from '../log.ts';
import { OwnershipProofs } from '../ownership/proofs.ts';
import { sharedRenderer } from '../qr/renderer.ts';
import { cryptoRandom } from '../random.ts';
import type { HookContext, UserRecord } from '../resources/define.ts';
import { RESOURCES } from '../resources/table.ts';
import { DailyCounters } from '../stats/daily-counters.ts';
import { EventStreams } from '../events/event-streams.ts';
import { Geolocator } from '../geo/geolocator.ts';
import type { Store } from '../store/store.ts';
import { NO_PROGRESS, progressOn } from './progress.ts';
import { CommandError, UsageError, common } from './users.ts';
import type { CommandIo, UserCommand } from './users.ts';

/** The user a command names by username or email (either, any letter case). */
async function userNamed(store: Store, name: string): Promise<UserRecord> {
  const user = await store.lookup<UserRecord>('users', name.includes('@') ? 'email' : 'username', name.toLowerCase());
  if (!user) throw new ApiError(404, `No user has the ${name.includes('@') ? 'email' : 'username'} "${name}" (users:list shows them).`);
  return user;
}

/** The services the link API's create path uses, for a command working on the store directly (no server, no requests). */
function commandContext(store: Store, config: Config, user: UserRecord): HookContext {
  const clock = systemClock;
  const random = cryptoRandom;
  return {
    store,
    config,
    clock,
    random,
    log: silentLogger,
    resources: RESOURCES,
    counters: new DailyCounters(store, { clock, random }),
    secret: randomBytes(32),
    limits: memoryLimiters(clock),
    renderer: sharedRenderer(config),
    proofs: new OwnershipProofs(store),
    audit: new AuditLog(store, { clock, log: silentLogger, retentionDays: config.auditRetentionDays }),
    keyUses: new KeyUses(store, clock),
    disabledUsers: new DisabledUsers(store),
    // Rows are links, not visits: nobody to locate.
    geo: new Geolocator(),
    // The server's deliveries send what this command's writes appended; a command streams nothing.
    webhooks: { kick() {} },
    streams: new EventStreams(store, { perUser: 0, databaseMs: Math.round(config.databaseTimeout * 1000) }),
    user,
    apiKey: null,
  };
}

/** A file read as UTF-8 text in pieces; a file that cannot be opened is the command's error, said in one line. */
async function* fileText(path: string): AsyncGenerator<string> {
  try {
    for await (const piece of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 })) yield piece as string;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).syscall) throw new CommandError(`Cannot read ${path}: ${(err as Error).message}`);
    throw err;
  }
}

/** One row of the report as a line: what happened, to which link, and why. */
export function reportLine(r: RowResult, dryRun: boolean): string {
  const outcome = dryRun && r.outcome === 'created' ? 'would create' : r.outcome;
  const link = r.id === undefined ? '' : ` link ${r.id}`;
  const alias = r.alias === undefined ? '' : ` /${r.alias}`;
  return `row ${r.row}: ${outcome}${link}${alias}${r.url === undefined ? '' : ` ${r.url}`}${r.message ? ` (${r.message})` : ''}`;
}

/** The summary line of an import. */
export function summaryLine(user: UserRecord, counts: OutcomeCounts, rows: number, dryRun: boolean): string {
  const who = `user ${user.id} <${user.email}>`;
  if (dryRun) return `Dry run for ${who}, nothing stored: ${counts.created} would be created, ${counts.skipped} skipped, ${counts.refused} refused (${rows} rows)`;
  return `Imported into ${who}: ${counts.created} created, ${counts.skipped} skipped, ${counts.refused} refused (${rows} rows)`;
}

/** Runs an import of a file for a user, a batch at a time, handing each row's result to `report`. */
async function importFile(ctx: HookContext, format: ImportFormat, path: string, dryRun: boolean, report: (r: RowResult) => void, tick: (n: number) => void): Promise<OutcomeCounts> {
  const counts: OutcomeCounts = { created: 0, skipped: 0, refused: 0 };
  const importer = new LinkImporter(ctx, ctx, dryRun);
  for await (const batch of batchesOf(sourceRows(format, fileText(path), ctx.clock.now()))) {
    const results = await importer.batch(batch);
    countOutcomes(counts, results);
    results.forEach(report);
    tick(results.length);
  }
  return counts;
}

/** `import-links`: links from another shortener's export, created for one user through the link API's rules. */
export const IMPORT_LINKS_COMMAND: UserCommand = {
  name: 'import-links',
  summary: `Create a user's links from another shortener's export (${FORMAT_NAMES.join(', ')}); --dry-run stores nothing`,
  usage: `import-links <file> --format ${FORMAT_NAMES.join('|')} --user <username or email> [--dry-run] [--json] [--progress] [--data-dir <dir> | --database-url <url>]`,
  positionals: true,
  details: [
    'Each row becomes a link of the user exactly as POST /api/url/add would make it: the same checks (URL, alias, reserved',
    "aliases, the user's branded domains), the same messages. Kept where the file has them: the alias, the title, the",
    'creation date (the link\'s date), and the click total (added to the link\'s statistics as clicks of its creation day).',
    'A row without an alias gets a generated one. A row is skipped when its alias is taken (by the same link: "already',
    'imported", so a second run creates nothing new), and refused with the link API\'s message when it is not a valid link.',
    "A link the source served on one of the user's branded domains here keeps it; others (bit.ly, rebrand.ly) go on the",
    'main host. Tags are not kept (links here have none). Unique clicks, countries and referrers are never made up.',
    'Every row is reported, then a summary; --json writes each row as a JSON object per line instead. The rows go in a',
    'batch (100 rows) per transaction. --dry-run checks every row the same way and stores nothing.',
    'Formats: ' + FORMAT_NAMES.join(', ') + ' (see docs/cli.md#import-links for the columns each reads).',
    'Exit codes: 0 done (even with rows skipped or refused), 1 unreadable file, no such user, or store problem, 2 bad command line.',
  ].join('\n'),
  options: { ...common, format: { type: 'string' }, user: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' }, progress: { type: 'boolean' } },
  async check(values, io) {
    const [path, ...extra] = io.positionals;
    if (path === undefined) throw new UsageError('Missing the file to import.');
    if (extra.length > 0) throw new UsageError(`One file at a time (got ${io.positionals.length}).`);
    if (typeof values.format !== 'string') throw new UsageError(`Missing --format (one of ${FORMAT_NAMES.join(', ')}).`);
    if (!importFormat(values.format)) throw new UsageError(`Unknown format "${values.format}": use one of ${FORMAT_NAMES.join(', ')}.`);
    if (typeof values.user !== 'string' || values.user.trim() === '') throw new UsageError('Missing --user <username or email> (who gets the links).');
  },
  async run(store, values, out, io) {
    const path = io.positionals[0]!;
    const format = importFormat(String(values.format))!;
    const dryRun = values['dry-run'] === true;
    const user = await userNamed(store, String(values.user).trim());
    if (!io.config) throw new Error('import-links needs the configuration');
    const ctx = commandContext(store, io.config, user);
    let total: number;
    try {
      // Read through once first: a file the format cannot read is refused before any row is stored.
      total = await countRows(format, fileText(path), ctx.clock.now());
    } catch (err) {
      if (err instanceof ImportFileError) throw new CommandError(`${path}: ${err.message}`);
      throw err;
    }
    const progress = values.progress === true || io.stderr.isTTY ? progressOn(io.stderr, `Importing into ${user.email}`, total) : NO_PROGRESS;
    const report = values.json === true ? (r: RowResult) => out(JSON.stringify(r)) : (r: RowResult) => out(reportLine(r, dryRun));
    let counts: OutcomeCounts;
    try {
      counts = await importFile(ctx, format, path, dryRun, report, (n) => progress.tick(n));
    } catch (err) {
      if (err instanceof ImportFileError) throw new CommandError(`${path}: ${err.message}`);
      throw err;
    }
    progress.done();
    if (!dryRun) await store.transaction((tx) => importEnded(tx, ctx, { id: null, userId: user.id, format: format.name, dryRun, state: 'finished', total, ...counts, message: null }));
    (values.json === true ? (line: string) => void io.stderr.write(`${line}\n`) : out)(summaryLine(user, counts, total, dryRun));
  },
};
