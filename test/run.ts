/**
 * `npm test`'s runner: every test file on the JSON-file store, then, when TEST_DATABASE_URL is set,
 * the files whose behaviour does not depend on the backend once more on PostgreSQL (TEST_STORE=postgres:
 * each store in a fresh schema, dropped after). Ends with one line adding both passes up.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// PostgreSQL-only files (postgres, postgres-server, instances, cluster, global-limits: the last needs
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
  'visitor-ledger-restart', 'compat-link-responses', 'cli-import', 'cli-data', 'files', 'domain-ownership', 'website-ownership',
  'webhooks', 'webhook-delivery', 'event-stream',
];

// Started first, longest first (the runner starts files in the order given, two at a time): a long
// file started last would leave one lane running alone at the end. Wall times measured one file at a time.
const LONGEST = ['global-limits', 'postgres-server', 'instances', 'webhooks-process', 'store-lock', 'cli-move', 'process', 'crash', 'cluster', 'openapi-contract', 'hostile-strings', 'cli-data', 'fuzz', 'docker', 'fake-package', 'demo'];
const weight = (file: string) => {
  const at = LONGEST.indexOf(file.slice(5, -8));
  return at < 0 ? LONGEST.length : at;
};

interface Tally {
  pass: number;
  fail: number;
  skipped: number;
}

/** Runs node's test runner over `files`; its report goes to stdout as it comes, or, `held`, all at once when asked. */
function run(files: string[], env: Record<string, string>, concurrency: number, held = false): { done: Promise<{ code: number; tally: Tally }>; release: () => void } {
  const kept: Buffer[] = [];
  let released = !held;
  const done = new Promise<{ code: number; tally: Tally }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const tally: Tally = { pass: 0, fail: 0, skipped: 0 };
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (released) process.stdout.write(chunk);
      else kept.push(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-4000);
    });
    child.on('close', (code) => {
      for (const [key, name] of [['pass', 'pass'], ['fail', 'fail'], ['skipped', 'skipped']] as const) {
        const m = new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tail);
        tally[key] = m ? Number(m[1]) : 0;
      }
      resolve({ code: code ?? 1, tally });
    });
  });
  const release = () => {
    for (const chunk of kept.splice(0)) process.stdout.write(chunk);
    released = true;
  };
  return { done, release };
}

// Tests that start the server in processes of their own start this build of it (see ENTRY in
// process-helpers.ts): made once here, unchecked (`npm test` type-checks first). Coverage counts what
// runs from src/ (the in-process tests), not the processes started from this build.
const BUILD = fileURLToPath(new URL('../.test-dist/', import.meta.url));
rmSync(BUILD, { recursive: true, force: true });
const built = spawnSync(process.execPath, [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json', '--noCheck', '--outDir', BUILD], { stdio: 'inherit' });
if (built.status !== 0) {
  console.error('test/run.ts: the build for the process tests failed');
  process.exit(1);
}
cpSync(fileURLToPath(new URL('../src/store/postgres/migrations', import.meta.url)), `${BUILD}store/postgres/migrations`, { recursive: true });
process.env.TEST_SERVER_ENTRY = `${BUILD}main.js`;

const all = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`).sort((a, b) => weight(a) - weight(b));
// Both passes at once: most files wait on processes, sockets, the disk or PostgreSQL more than on
// the 2 cores. The PostgreSQL pass's report is held and printed after the file pass's, whole.
const twice = all.filter((f) => BOTH_BACKENDS.includes(f.slice(5, -8)));
const second = process.env.TEST_DATABASE_URL ? run(twice, { TEST_STORE: 'postgres' }, 2, true) : null;
const file = await run(all, { TEST_STORE: 'file' }, 2).done;
let postgres: { code: number; tally: Tally } | null = null;
if (second) {
  console.log(`# PostgreSQL pass: ${twice.length} test files again on ${new URL(process.env.TEST_DATABASE_URL!).host}`);
  second.release();
  postgres = await second.done;
} else {
  console.log('# PostgreSQL pass skipped: TEST_DATABASE_URL is not set');
}
const pass = file.tally.pass + (postgres?.tally.pass ?? 0);
const fail = file.tally.fail + (postgres?.tally.fail ?? 0);
const skipped = file.tally.skipped + (postgres?.tally.skipped ?? 0);
console.log(`# file store: ${file.tally.pass} passed, ${file.tally.fail} failed; PostgreSQL: ${postgres ? `${postgres.tally.pass} passed, ${postgres.tally.fail} failed` : 'skipped'}`);
console.log(`total: ${pass} passed, ${fail} failed, ${skipped} skipped`);
process.exitCode = file.code !== 0 || (postgres && postgres.code !== 0) ? 1 : 0;
