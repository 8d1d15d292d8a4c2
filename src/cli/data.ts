import { systemClock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { prepareFixtures } from '../fixtures/prepare.ts';
import { FixtureError, readFixtures } from '../fixtures/read.ts';
import type { RawFixtures } from '../fixtures/read.ts';
import type { UserRecord } from '../resources/define.ts';
import { RESOURCES } from '../resources/table.ts';
import type { Store } from '../store/store.ts';
import { exportSize, exportUser, serializeExport } from './export.ts';
import { checkExportTarget } from './export-output.ts';
import { importInto } from './import.ts';
import { runExportAll, runImportAll, toFile } from './move-data.ts';
import { NO_PROGRESS, progressOn } from './progress.ts';
import type { Progress } from './progress.ts';
import { UsageError, common } from './users.ts';
import type { CommandIo, UserCommand } from './users.ts';

async function userByEmail(store: Store, email: string, hint: string): Promise<UserRecord> {
  const user = await store.lookup<UserRecord>('users', 'email', email.toLowerCase());
  if (!user) throw new ApiError(404, `No user has the email "${email}".${hint}`);
  return user;
}

function progressFor(values: Record<string, unknown>, io: CommandIo, label: string, total: number): Progress {
  return values.progress === true || io.stderr.isTTY ? progressOn(io.stderr, label, total) : NO_PROGRESS;
}

function recordCount(data: Record<string, unknown[]>): number {
  return Object.values(data).reduce((n, records) => n + records.length, 0);
}

/** The email an import goes to when --email is not given: the one user of the file. */
function emailOfFile(raw: RawFixtures): string {
  const users = Array.isArray(raw.users) ? (raw.users as { email?: unknown }[]) : [];
  const email = users[0]?.email;
  if (users.length !== 1 || typeof email !== 'string') {
    throw new UsageError(`The file has ${users.length === 0 ? 'no user' : 'several users'}: say which user receives the records with --email <email>.`);
  }
  return email;
}

/** The records of an import file without its users, each owned by the target (ids are replaced anyway). */
function recordsOf(raw: RawFixtures, target: UserRecord): RawFixtures {
  const header = raw.$export as { version?: unknown } | undefined;
  if (header && typeof header.version === 'number' && header.version > 1) throw new FixtureError(`The file is an export of version ${header.version}; this server reads version 1.`);
  const out: RawFixtures = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'users' || key.startsWith('$')) continue;
    out[key] = Array.isArray(value) ? value.map((r: unknown) => (r && typeof r === 'object' ? { ...r, userId: target.id } : r)) : value;
  }
  return out;
}

const PROGRESS_HELP = 'A progress indicator goes to stderr when it is a terminal, or always with --progress.';

/** Backups and moves of one user's data. */
export const DATA_COMMANDS: readonly UserCommand[] = [
  {
    name: 'export',
    summary: "Write one user's data as JSON (no API key or password); --all: the whole store, hashes and ids kept",
    usage: 'export --email <email> | --all   [--output <file>] [--progress] [--data-dir <dir> | --database-url <url>]   (without --output: stdout, redirected)',
    details: [
      'The output is a fixtures file: `import` reads it back (into any user), `serve --seed` loads it into an empty server.',
      "Link and stats-page passwords stay as their hashes, so what was protected stays protected after an import; the user's",
      'own API key and password are not written.',
      '',
      '--all writes the whole store instead: every user with its API key hash and password hash, every record and every',
      'statistics day, all with their ids, for `import --all` into an empty store of either backend (JSON files or',
      'PostgreSQL: see docs/postgresql.md#moving-to-postgresql). Keep the file as safe as the data: it is written 0600.',
      'Stop the server first; an export whose data changes while it is written fails.',
      '',
      "Where it goes: --output <file>, or stdout when it is redirected or piped (--all is never printed on a terminal). A file",
      "inside the server's own directory is refused unless it is under exports/, which git and npm pack leave out: keep",
      'backups outside the repository (e.g. ~/backups/shortlink.json).',
      PROGRESS_HELP,
      'Exit codes: 0 done, 1 no such user, data changed meanwhile, or store problem, 2 bad command line.',
    ].join('\n'),
    options: { ...common, email: { type: 'string' }, all: { type: 'boolean' }, output: { type: 'string', short: 'o' }, progress: { type: 'boolean' } },
    async check(values, io) {
      if (values.all === true && typeof values.email === 'string') throw new UsageError('--all exports every user: leave out --email.');
      if (values.all !== true && typeof values.email !== 'string') throw new UsageError('Missing --email <email> (whose data to export), or --all (everything).');
      await checkExportTarget(typeof values.output === 'string' ? values.output : undefined, io.stdoutIsTerminal === true, values.all === true);
    },
    async run(store, values, out, io) {
      if (values.all === true) return runExportAll(store, values, out, io);
      if (typeof values.email !== 'string') throw new UsageError('Missing --email <email> (whose data to export), or --all (everything).');
      const user = await userByEmail(store, values.email, '');
      const progress = progressFor(values, io, `Exporting ${user.email}`, await exportSize(store, user, RESOURCES));
      const file = await exportUser(store, user, RESOURCES, systemClock.now(), progress);
      const text = serializeExport(file);
      if (typeof values.output !== 'string') {
        io.write(text);
        return;
      }
      // A user's export holds the hashes of their protected links', files' and stats pages' passwords.
      await toFile(values.output, async (sink) => sink(text));
      const { $export: _header, users: _users, ...data } = file;
      out(`Exported ${recordCount(data as Record<string, unknown[]>)} records of ${user.email} to ${values.output}`);
    },
  },
  {
    name: 'import',
    summary: "Add an export's records to a user with fresh ids; --all: fill an empty store, ids kept",
    usage: 'import <file> [--email <target user> | --all] [--progress] [--data-dir <dir> | --database-url <url>]',
    positionals: true,
    details: [
      "Every record gets a new id and the target user as owner; references between the file's records (a link's campaign,",
      "pixels, channels, domain, splash page, overlay; a QR code's channels; statistics) follow them. Nothing in the data",
      'directory is changed or replaced. Default target: the user of the file, found by email (create it first with users:add).',
      'Aliases and slugs already taken get a suffix (-2, -3...); a branded domain can belong to one user only: the',
      "target's own is reused, another user's is left out. A website the target has is reused; one of a domain another",
      'website has is imported but receives no events until its ownership is proven. Each change is reported. All or',
      'nothing: one transaction.',
      '',
      '--all reads a file of `export --all` into an EMPTY store (JSON files or PostgreSQL) and keeps everything as it was:',
      'ids, aliases, API key hashes (the same keys work), password hashes and statistics. A store holding any record is',
      'refused. All or nothing: one transaction, so a failed import leaves the store empty.',
      PROGRESS_HELP,
      'Exit codes: 0 done, 1 invalid file, no such user, target not empty, or store problem, 2 bad command line.',
    ].join('\n'),
    options: { ...common, email: { type: 'string' }, all: { type: 'boolean' }, progress: { type: 'boolean' } },
    async run(store, values, out, io) {
      const [path, ...extra] = io.positionals;
      if (path === undefined || extra.length > 0) throw new UsageError(path === undefined ? 'Missing the file to import.' : `One file at a time (got ${io.positionals.length}).`);
      if (values.all === true) {
        if (typeof values.email === 'string') throw new UsageError('--all imports every user of the file with its own id: leave out --email.');
        return runImportAll(store, path, out);
      }
      const raw = await readFixtures(path);
      const email = typeof values.email === 'string' ? values.email : emailOfFile(raw);
      const target = await userByEmail(store, email, ` Create it first (users:add --email ${email}) or choose another user with --email.`);
      const data = await prepareFixtures(recordsOf(raw, target), RESOURCES, systemClock.now());
      const progress = progressFor(values, io, `Importing into ${target.email}`, recordCount(data));
      const report = await importInto(store, data, target, RESOURCES, progress);
      const counts = Object.entries(report.imported).map(([c, n]) => `${n} ${c}`);
      out(`Imported into user ${target.id} <${target.email}>: ${counts.length > 0 ? counts.join(', ') : 'nothing'}`);
      for (const note of report.notes) out(`  note: ${note}`);
    },
  },
];
