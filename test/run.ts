/**
 * `npm test`'s runner: every test file on the JSON-file store, then the files whose behaviour depends
 * on the backend once more on PostgreSQL (TEST_STORE=postgres: each store in a fresh schema, dropped
 * after). The PostgreSQL is the one TEST_DATABASE_URL names, else one embedded for the run
 * (test/runner/embedded-postgres.ts), else the pass is skipped with one line. The files that leave
 * a process as they found it share a few processes (test/runner/groups.ts); the others, and the
 * long ones, have one each. The runner owns the coverage gate: it counts what ran. Ends with one
 * line adding both passes up.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCoverage, coverageEnv } from './runner/coverage.ts';
import { openRunPool, testDatabase } from './runner/test-database.ts';
import { runsAlone, writeGroups } from './runner/groups.ts';
import { interruptPasses, runTestFiles, shortName, slowest, timesTable, total } from './runner/test-files.ts';
import type { PassResult } from './runner/test-files.ts';

// PostgreSQL-only files (postgres, postgres-server, instances, keys-instances, cluster, global-limits: the last needs
// TEST_REDIS_URL too; and webhooks-process, whose PostgreSQL half is such) are not listed: they run in the first pass,
// read TEST_DATABASE_URL themselves, and print one skip line without it.
// What runs twice: what reads and writes the store in ways a backend decides: the records of every
// resource through the API (uniques, cascades, ownership, lists with their search, sort and paging),
// redirects and their counters, analytics ingest and statistics, imports and exports, files, the
// visitor ledger, and hostile strings stored as they came. Run once: what is decided before or
// around the store (keys, rate limits with their counters faked, passwords and pages, URL and
// payload checks, the answers' shapes of the compatibility files, the OpenAPI document, the fuzz
// run's 2,000 refusals), the file store's own tests (journal, lock, modes, crash), pure functions,
// and what never opens a store. The storage interface itself is store-contract.test.ts's, on both.
const BOTH_BACKENDS = [
  'analytics-ingest', 'analytics-websites', 'bios', 'campaigns', 'channels', 'compat-users-campaigns', 'domains', 'hostile-strings',
  'isolation', 'links', 'openapi-contract', 'qrs', 'redirects', 'resources', 'users', 'click-stats',
  'visitor-ledger-restart', 'compat-link-responses', 'cli-import', 'cli-data', 'files', 'qr-images', 'domain-ownership', 'website-ownership',
  'api-keys', 'key-scopes', 'audit', 'bulk', 'bulk-alias-clash', 'idempotency', 'work-marks',
  'event-properties', 'stats-export', 'analytics-realtime', 'stats-retention', 'link-imports', 'import-jobs', 'analytics-geo', 'click-sources', 'stats-page-view', 'stats-page-access',
  'webhooks', 'webhook-delivery', 'event-stream', 'links-list-order', 'rate-window-batches', 'rate-slices', 'dashboard-sessions', 'dashboard-links', 'dashboard-account', 'dashboard-admin', 'dashboard-websites', 'dashboard-resources', 'user-disable', 'dashboard-limit',
  'dashboard-qrs', 'dashboard-bios-files', 'dashboard-ask-first', 'pg-domain-takeover',
];

// Started first, longest first (the runner starts files in the order given, a few at a time): a long
// file started last would leave one lane running alone at the end. Order from coverage/test-times.tsv of a full run.
const LONGEST = [
  'openapi-contract', 'browser-pages', 'browser-stats-page', 'browser-dashboard', 'browser-dashboard-resources', 'browser-dashboard-qrbio', 'browser-long-text', 'hostile-strings', 'silent-network', 'cli-data', 'cli-move', 'qr-images', 'postgres-server', 'import-crash', 'fuzz',
  'global-limits', 'pg-replicas', 'instances', 'webhooks-process', 'store-lock', 'connections', 'process', 'crash', 'cluster', 'docs-examples', 'keys-instances', 'docker', 'fake-package', 'demo', 'start-up',
];
const weight = (file: string) => {
  const at = LONGEST.indexOf(shortName(file));
  return at < 0 ? LONGEST.length : at;
};
// How many test processes of the file pass run at once (the PostgreSQL pass runs PG_LANES beside them):
// most of the file pass's processes wait on the processes, servers and browsers they start (a
// run's file pass used 450 s of CPU over 1,020 s of its processes' time).
const FILE_LANES = 3;
// The PostgreSQL pass's processes, beside them: they wait on PostgreSQL and on the flushes' timers most
// of their time (a run's pass took 505 s of its processes' time for 64 s of their CPU).
const PG_LANES = 4;
// How many processes the files that share one run in (test/runner/groups.ts), in each pass.
const GROUPS = { file: 4, postgres: 3 };

// What each file cost in the last run (coverage/ is git-ignored).
const TIMES = fileURLToPath(new URL('../coverage/test-times.tsv', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The groups' modules (test/runner/groups.ts), written for each run beside the build.
const GROUP_DIR = '.test-dist/groups';
/** The time each file of a pass took in the last run, in ms (none on a first run). */
function lastTimes(pass: string): Map<string, number> {
  const rows = existsSync(TIMES) ? readFileSync(TIMES, 'utf8').split('\n').slice(1) : [];
  return new Map(rows.map((row) => row.split('\t')).filter((c) => c[1] === pass).map((c) => [c[0]!, Number(c[2])]));
}
// Tests that start the server in processes of their own start this build of it (see ENTRY in
// process-helpers.ts): `npm run build`'s bundle, made once here (the type check runs beside the tests). Coverage
// counts what runs from src/ in the test processes themselves (see test/runner/coverage.ts), not the processes they start.
const BUILD = fileURLToPath(new URL('../.test-dist/', import.meta.url));
const node = (args: string[]) => new Promise<number | null>((resolve) => spawn(process.execPath, args, { stdio: 'inherit' }).on('close', resolve));
const build = node([fileURLToPath(new URL('../bin/build.mjs', import.meta.url)), BUILD]);
const TSC = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const tsc = (args: string[]) => node([TSC, ...args]);
// The type check (`npm run typecheck`) runs beside the build and the tests, on a core they leave
// idle part of the time; a type error stops the run as soon as it is known, and fails it.
const typecheck = tsc(['--noEmit', '-p', 'tsconfig.json']);
void typecheck.then((code) => {
  if (code === 0) return;
  console.error('npm test: the type check failed (above); the tests are stopped');
  interruptPasses('SIGTERM');
  void stopDatabase().finally(() => process.exit(1));
});
// The embedded PostgreSQL starts (initdb, about 2 s) while the build compiles.
const starting = testDatabase();
const stopDatabase = async () => {
  const database = await starting;
  if ('url' in database) await database.stop();
};
// What is left in the run's pool of test schemas is dropped at its end (set once the pool is made).
let closePool: () => Promise<void> | undefined = () => undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // Ctrl-C: the test processes go first, then the pool of test schemas, then the embedded PostgreSQL and its directory.
    interruptPasses(signal);
    void Promise.resolve(closePool())
      .then(stopDatabase)
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}
const [built, database] = await Promise.all([build, starting]);
if (built !== 0) {
  console.error('test/run.ts: the build for the process tests failed');
  await stopDatabase();
  process.exit(1);
}

// Each PostgreSQL store a test opens appends `migrated` or `reused` here (test/backend.ts).
const SCHEMA_LOG = fileURLToPath(new URL('../coverage/schemas.log', import.meta.url));
rmSync(SCHEMA_LOG, { force: true });
mkdirSync(dirname(SCHEMA_LOG), { recursive: true });
// The test processes hand their emptied schemas on through the run's pool (test/schema-pool.ts).
const pool = 'url' in database ? await openRunPool(database) : null;
closePool = () => pool?.close();
const common = {
  ...coverageEnv(),
  TEST_SCHEMA_LOG: SCHEMA_LOG,
  TEST_SERVER_ENTRY: `${BUILD}main.js`,
  ...('url' in database ? { TEST_DATABASE_URL: database.url } : {}),
  ...(pool ? { TEST_SCHEMA_POOL: pool.run } : {}),
};
const all = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`).sort((a, b) => weight(a) - weight(b));
const twice = all.filter((f) => BOTH_BACKENDS.includes(shortName(f)));

/**
 * What a pass starts: the long files first, then the groups of files that share a process, then
 * the other files that run alone. A group is made of the files last seen cheapest together.
 */
function processesOf(pass: keyof typeof GROUPS, files: string[]): string[] {
  const alone = files.filter((f) => LONGEST.includes(shortName(f)) || runsAlone(ROOT, f));
  const last = lastTimes(pass);
  const groups = writeGroups(ROOT, GROUP_DIR, `${pass}-group`, files.filter((f) => !alone.includes(f)), GROUPS[pass], (f) => last.get(f) ?? 1000, 'test/helpers.ts');
  const long = alone.filter((f) => weight(f) < LONGEST.length);
  return [...long, ...groups.map((g) => g.entry), ...alone.filter((f) => !long.includes(f))];
}

// Both passes at once: most files wait on processes, sockets, the disk or PostgreSQL more than on
// the 2 cores. The PostgreSQL pass's report is held and printed after the file pass's, whole.
const second = 'url' in database ? runTestFiles(processesOf('postgres', twice), { ...common, TEST_STORE: 'postgres' }, PG_LANES, true) : null;
let file: PassResult;
let postgres: PassResult | null = null;
try {
  file = await runTestFiles(processesOf('file', all), { ...common, TEST_STORE: 'file' }, FILE_LANES).done;
  if (second && 'url' in database) {
    console.log(`# PostgreSQL pass: ${twice.length} test files again on ${database.label}`);
    second.release();
    postgres = await second.done;
  } else if ('skipped' in database) {
    console.log(`# PostgreSQL pass skipped: ${database.skipped}`);
  }
} finally {
  await pool?.close();
  await stopDatabase();
}
const slow = [...slowest(file.times, 8), ...(postgres ? slowest(postgres.times, 8, ' (PostgreSQL)') : [])].sort((a, b) => b.ms - a.ms).slice(0, 8);
const cpu = (total(file.times.cpu) + (postgres ? total(postgres.times.cpu) : 0)) / 1000;
writeFileSync(TIMES, timesTable({ file: file.times, ...(postgres ? { postgres: postgres.times } : {}) }));
console.log(`# slowest files: ${slow.map((s) => s.line).join(', ')}; CPU of all test processes ${cpu.toFixed(0)} s`);
if (postgres) {
  const opened = existsSync(SCHEMA_LOG) ? readFileSync(SCHEMA_LOG, 'utf8').split('\n').filter(Boolean) : [];
  const reused = opened.filter((line) => line === 'reused').length;
  console.log(`# PostgreSQL stores of the tests: ${opened.length - reused} on a migrated schema, ${reused} on an emptied one reused`);
}
const covered = checkCoverage(postgres !== null);
const pass = file.tally.pass + (postgres?.tally.pass ?? 0);
const fail = file.tally.fail + (postgres?.tally.fail ?? 0);
const skipped = file.tally.skipped + (postgres?.tally.skipped ?? 0);
for (const [pass, result] of [['file store', file], ['PostgreSQL', postgres]] as const) {
  for (const failure of result?.failures ?? []) console.log(`# failed (${pass}): ${failure}`);
}
console.log(`# file store: ${file.tally.pass} passed, ${file.tally.fail} failed; PostgreSQL: ${postgres ? `${postgres.tally.pass} passed, ${postgres.tally.fail} failed` : 'skipped'}`);
console.log(`total: ${pass} passed, ${fail} failed, ${skipped} skipped`);
const typed = await typecheck;
process.exitCode = file.code !== 0 || (postgres && postgres.code !== 0) || covered !== 0 || typed !== 0 ? 1 : 0;
