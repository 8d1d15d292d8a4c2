/**
 * `npm test`'s runner: every test file on the JSON-file store, then, when TEST_DATABASE_URL is set,
 * the files whose behaviour does not depend on the backend once more on PostgreSQL (TEST_STORE=postgres:
 * each store in a fresh schema, dropped after). Ends with one line adding both passes up.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

// PostgreSQL-only files (postgres, postgres-server, instances, cluster, global-limits: the last needs
// TEST_REDIS_URL too) are not listed: they run in the first pass,
// read TEST_DATABASE_URL themselves, and print one skip line without it.
// What runs twice: the API, redirects, analytics and pages through the app; not the file store's own
// tests (journal, lock, modes, crash), nor pure functions, nor what never opens a store. Run once:
// the fuzz run (2,000 refused requests; on PostgreSQL it alone took 45 s) and method-not-allowed,
// whose refusals happen before the store, and openapi, which checks the document and the routes;
// hostile-strings, which stores what passes, runs on both.
const BOTH_BACKENDS = [
  'account', 'analytics-ingest', 'analytics-stats-page', 'analytics-websites', 'analytics-websites-list', 'auth', 'bios', 'campaigns',
  'channels', 'compat-plans-login', 'compat-users-campaigns', 'compat-wrapper-calls', 'domains', 'hostile-strings', 'isolation', 'links', 'openapi-contract', 'overlays',
  'page-security', 'password-guessing', 'password-work', 'qrs', 'rate-limit', 'redirects', 'resources', 'url-fields', 'users', 'qr-logo-fetch', 'click-stats', 'visitor-ledger-restart',
  'compat-link-responses', 'compat-qr-payloads', 'cli-import', 'cli-data', 'files',
];

// Started first, longest first (the runner starts files in the order given, two at a time): a long
// file started last would leave one lane running alone at the end. Wall times measured one file at a time.
const LONGEST = ['global-limits', 'postgres-server', 'instances', 'store-lock', 'cli-move', 'process', 'crash', 'cluster', 'openapi-contract', 'hostile-strings', 'cli-data', 'fuzz', 'docker', 'fake-package', 'demo'];
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
