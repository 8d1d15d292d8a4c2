/**
 * `npm test`'s runner: every test file on the JSON-file store, then, when TEST_DATABASE_URL is set,
 * the files whose behaviour does not depend on the backend once more on PostgreSQL (TEST_STORE=postgres:
 * each store in a fresh schema, dropped after). Ends with one line adding both passes up.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

// PostgreSQL-only files (postgres, postgres-server) are not listed: they run in the first pass,
// read TEST_DATABASE_URL themselves, and print one skip line without it.
// What runs twice: the API, redirects, analytics and pages through the app; not the file store's own
// tests (journal, lock, modes, crash), nor pure functions, nor what never opens a store.
const BOTH_BACKENDS = [
  'account', 'analytics-ingest', 'analytics-stats-page', 'analytics-websites', 'analytics-websites-list', 'auth', 'bios', 'campaigns',
  'channels', 'domains', 'fuzz', 'hostile-strings', 'isolation', 'links', 'method-not-allowed', 'openapi-contract', 'overlays',
  'openapi', 'page-security', 'password-guessing', 'password-work', 'qrs', 'rate-limit', 'redirects', 'resources', 'url-fields', 'users', 'qr-logo-fetch', 'click-stats', 'visitor-ledger-restart',
];

interface Tally {
  pass: number;
  fail: number;
  skipped: number;
}

function run(files: string[], env: Record<string, string>, concurrency = 2): Promise<{ code: number; tally: Tally }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const tally: Tally = { pass: 0, fail: 0, skipped: 0 };
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
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
}

const all = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`);
const file = await run(all, { TEST_STORE: 'file' });
let postgres: { code: number; tally: Tally } | null = null;
if (process.env.TEST_DATABASE_URL) {
  const twice = all.filter((f) => BOTH_BACKENDS.includes(f.slice(5, -8)));
  console.log(`# PostgreSQL pass: ${twice.length} test files again on ${new URL(process.env.TEST_DATABASE_URL).host}`);
  postgres = await run(twice, { TEST_STORE: 'postgres' }, 4);
} else {
  console.log('# PostgreSQL pass skipped: TEST_DATABASE_URL is not set');
}
const pass = file.tally.pass + (postgres?.tally.pass ?? 0);
const fail = file.tally.fail + (postgres?.tally.fail ?? 0);
const skipped = file.tally.skipped + (postgres?.tally.skipped ?? 0);
console.log(`# file store: ${file.tally.pass} passed, ${file.tally.fail} failed; PostgreSQL: ${postgres ? `${postgres.tally.pass} passed, ${postgres.tally.fail} failed` : 'skipped'}`);
console.log(`total: ${pass} passed, ${fail} failed, ${skipped} skipped`);
process.exitCode = file.code !== 0 || (postgres && postgres.code !== 0) ? 1 : 0;
