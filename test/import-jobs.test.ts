/**
 * POST /api/import and GET /api/import/:id as an API, on both backends: what a request is refused
 * for (storing nothing), the multipart form, the report's pages, another user's job, and the jobs
 * as a queue: several runners on one store run each job once, and a job whose lease another
 * process holds is left alone until the lease runs out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { importFormat } from '../src/imports/formats.ts';
import { IMPORT_PARTS, IMPORT_RESULTS, IMPORTS } from '../src/imports/job-rows.ts';
import type { ImportJob } from '../src/imports/job-rows.ts';
import { createImportJob } from '../src/imports/jobs.ts';
import { IMPORT_LEASE_MS } from '../src/imports/runner.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { exportUser } from '../src/cli/export.ts';
import { checkAllExport, importAll } from '../src/cli/import-all.ts';
import { runExportAll } from '../src/cli/move-data.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { allOf, eventually, openTestStore, ownedBy, testApp } from './helpers.ts';

type App = Awaited<ReturnType<typeof testApp>>;
// any: job bodies are read field by field with assertions
type Job = any;

const imports = async (t: App) => JSON.stringify([await allOf(t.store, IMPORTS), await allOf(t.store, IMPORT_PARTS), await allOf(t.store, IMPORT_RESULTS), await allOf(t.store, 'links')]);

async function ended(t: App, key: string, id: number, query = 'limit=1000'): Promise<Job> {
  let job: Job;
  assert.ok(await eventually(async () => ((job = (await t.call('GET', `/api/import/${id}?${query}`, { key })).body.data), job.state === 'finished'), 20_000), JSON.stringify(job));
  return job;
}

const rowsCsv = (n: number, from = 1) => ['url,alias', ...Array.from({ length: n }, (_, i) => `https://rows.example/${from + i},row-${from + i}`)].join('\n');

test('a request the import cannot take is refused with the reason, and stores nothing', async () => {
  const t = await testApp({ importMaxBytes: 2000, rateLimit: 0 });
  const user = await t.makeUser();
  const before = await imports(t);
  const cases: { name: string; path: string; raw?: string; type?: string; status: number; message: RegExp }[] = [
    { name: 'no format', path: '/api/import', raw: rowsCsv(1), status: 400, message: /^Missing required parameter: format$/ },
    { name: 'an unknown format', path: '/api/import?format=tinyurl', raw: rowsCsv(1), status: 400, message: /^Invalid format: must be one of csv, bitly, yourls, shlink, kutt, rebrandly\.$/ },
    { name: 'a bad dry_run', path: '/api/import?format=csv&dry_run=maybe', raw: rowsCsv(1), status: 400, message: /^Invalid dry_run: must be true or false\.$/ },
    { name: 'an empty file', path: '/api/import?format=csv', raw: ' \n', status: 400, message: /^The file is empty\.$/ },
    { name: 'a header without rows', path: '/api/import?format=csv', raw: 'url,alias\n', status: 400, message: /^The file has no rows: expected a CSV file/ },
    { name: 'no url column', path: '/api/import?format=bitly', raw: 'keyword,url\nabc,https://x.example/', status: 400, message: /^This is not Bitly's CSV export of links: no column holds the URL \(expected one of "longurl", "destinationurl"; the header has "keyword", "url"\)\.$/ },
    { name: 'JSON for a CSV format', path: '/api/import?format=shlink', raw: '[{"longUrl":"https://x.example/"}]', status: 400, message: /^The file is JSON: expected Shlink's/ },
    { name: 'CSV for Kutt without its columns', path: '/api/import?format=kutt', raw: 'a,b\n1,2', status: 400, message: /no column holds the URL/ },
    { name: 'broken JSON', path: '/api/import?format=kutt', raw: '{"data":[{"target":"https://x.example/"', status: 400, message: /^The file ends before its list does/ },
    { name: 'a quote never closed', path: '/api/import?format=csv', raw: 'url,title\nhttps://x.example/,"open', status: 400, message: /^Line 2: a quoted cell is never closed\.$/ },
    { name: 'a file over IMPORT_MAX_BYTES', path: '/api/import?format=csv', raw: rowsCsv(200), status: 413, message: /^The file is larger than the limit of 2000 bytes \(IMPORT_MAX_BYTES\)/ },
  ];
  for (const c of cases) {
    const r = await t.call('POST', c.path, { key: user.key, raw: c.raw, headers: { 'content-type': c.type ?? 'text/csv' } });
    assert.equal(r.status, c.status, `${c.name}: ${r.text}`);
    assert.equal(r.body.error, 1, c.name);
    assert.match(r.body.message, c.message, c.name);
    assert.equal(await imports(t), before, `${c.name}: nothing stored`);
  }
  // Without a key, nothing is read at all.
  const anonymous = await t.call('POST', '/api/import?format=csv', { key: null, raw: rowsCsv(1) });
  assert.equal(anonymous.status, 401);
  assert.equal(await imports(t), before);
});

test('a multipart form carries the file in `file` and the fields beside it', async () => {
  const t = await testApp({ rateLimit: 0 });
  const user = await t.makeUser();
  const form = new FormData();
  form.append('format', 'yourls');
  form.append('dry_run', 'false');
  form.append('file', new Blob([await readFile(new URL('./fixtures/imports/yourls.csv', import.meta.url))], { type: 'text/csv' }), 'yourls.csv');
  const res = await t.app.request('/api/import', { method: 'POST', headers: { authorization: `Bearer ${user.key}` }, body: form });
  const body = (await res.json()) as Job;
  assert.equal(res.status, 202, JSON.stringify(body));
  assert.deepEqual([body.error, body.state, body.dry_run, body.total], [0, 'queued', false, 3]);
  const job = await ended(t, user.key, body.id);
  assert.deepEqual([job.format, job.created, job.refused], ['yourls', 2, 1]);
  assert.deepEqual((await ownedBy<{ id: number; alias: string }>(t.store, 'links', user.id)).map((l) => l.alias), ['example', 'blog']);
  const noFile = new FormData();
  noFile.append('format', 'csv');
  const refused = await t.app.request('/api/import', { method: 'POST', headers: { authorization: `Bearer ${user.key}` }, body: noFile });
  assert.deepEqual([refused.status, ((await refused.json()) as Job).message], [400, 'Missing required parameter: file']);
});

test("the report comes a page at a time, in the file's order; another user's job is not found, as a missing one", async () => {
  const t = await testApp({ rateLimit: 0 });
  const user = await t.makeUser();
  const posted = await t.call('POST', '/api/import?format=csv', { key: user.key, raw: rowsCsv(250) });
  const job = await ended(t, user.key, posted.body.id, 'page=2&limit=100');
  assert.deepEqual([job.progress, job.created], [{ done: 250, total: 250 }, 250]);
  assert.deepEqual({ ...job.report, rows: undefined }, { result: 250, perpage: 100, currentpage: 2, nextpage: 3, maxpage: 3, rows: undefined });
  assert.deepEqual(job.report.rows.map((r: { row: number; alias: string }) => [r.row, r.alias]), Array.from({ length: 100 }, (_, i) => [101 + i, `row-${101 + i}`]));
  const last = (await t.call('GET', `/api/import/${posted.body.id}?page=3&limit=100`, { key: user.key })).body.data.report;
  assert.deepEqual([last.rows.length, last.rows[0].row, last.nextpage], [50, 201, null]);
  // The file is not kept once the job ended; the report is.
  assert.deepEqual(await allOf(t.store, IMPORT_PARTS), []);
  const stranger = await t.makeUser();
  const theirs = await t.call('GET', `/api/import/${posted.body.id}`, { key: stranger.key });
  const missing = await t.call('GET', '/api/import/999999', { key: stranger.key });
  assert.deepEqual([theirs.status, theirs.body], [404, { error: 1, message: 'Import not found.' }]);
  assert.deepEqual([missing.status, missing.body], [404, { error: 1, message: 'Import not found.' }]);
  assert.equal((await t.call('GET', '/api/import/abc', { key: user.key })).status, 404);
});

test('several runners on one store run each queued job once: every link once, no row skipped as taken', async () => {
  const first = await testApp({ rateLimit: 0 });
  const second = await testApp({ rateLimit: 0 }, { store: first.store });
  const users = [await first.makeUser(), await first.makeUser(), await first.makeUser(), await first.makeUser()];
  const jobs: { key: string; id: number }[] = [];
  for (const user of users) {
    // Each app queues a file and wakes its own runner; both runners take from the one queue.
    for (const t of [first, second]) jobs.push({ key: user.key, id: (await t.call('POST', '/api/import?format=csv', { key: user.key, raw: rowsCsv(60, 1 + jobs.length * 60) })).body.id });
  }
  for (const { key, id } of jobs) {
    const job = await ended(first, key, id);
    assert.deepEqual([job.created, job.skipped, job.refused], [60, 0, 0], `job ${id}`);
  }
  const links = await allOf<{ id: number; alias: string }>(first.store, 'links');
  assert.equal(links.length, 480);
  assert.equal(new Set(links.map((l) => l.alias)).size, 480);
});

test("a job whose lease another process holds is left to it; once the lease ran out, it is taken up and run to its end", async () => {
  const t = await testApp({ rateLimit: 0 });
  const user = await t.makeUser();
  const record = (await t.store.get<UserRecord>('users', user.id))!;
  // Queued as POST /api/import does, then taken by a process that died holding it.
  const queued = await createImportJob(t, record, { format: importFormat('csv')!, dryRun: false, text: rowsCsv(120) });
  await t.store.transaction((tx) => tx.update<ImportJob>(IMPORTS, queued.id, { state: 'running', holder: 'gone:1:x', attempts: 1, started: '2026-11-21 10:00:00', due: t.clock.now() + IMPORT_LEASE_MS }));
  // A new job wakes this app's runner: it runs that one and leaves the held one alone.
  const other = await t.call('POST', '/api/import?format=csv', { key: user.key, raw: rowsCsv(1, 500) });
  await ended(t, user.key, other.body.id);
  const held = (await t.call('GET', `/api/import/${queued.id}`, { key: user.key })).body.data;
  assert.deepEqual([held.state, held.progress.done], ['running', 0]);
  assert.equal((await ownedBy(t.store, 'links', user.id)).length, 1);
  t.clock.advance(IMPORT_LEASE_MS + 1);
  const third = await t.call('POST', '/api/import?format=csv', { key: user.key, raw: rowsCsv(1, 600) });
  const job = await ended(t, user.key, queued.id);
  await ended(t, user.key, third.body.id);
  assert.deepEqual([job.created, job.progress.done, job.started], [120, 120, '2026-11-21 10:00:00']);
  const stored = await t.store.get<ImportJob>(IMPORTS, queued.id);
  assert.deepEqual([stored!.attempts, stored!.holder, stored!.due], [2, null, null]);
  assert.equal((await ownedBy(t.store, 'links', user.id)).length, 122);
});

test("export --all carries import jobs and their reports into import --all; one user's export leaves them out", async () => {
  const t = await testApp({ rateLimit: 0 });
  const user = await t.makeUser();
  const posted = await t.call('POST', '/api/import?format=csv', { key: user.key, raw: rowsCsv(3) });
  const job = await ended(t, user.key, posted.body.id);
  let text = '';
  await runExportAll(t.store, {}, () => {}, { positionals: [], write: (piece) => void (text += piece), stderr: { write: () => true } });
  const target = await openTestStore();
  await importAll(target, checkAllExport(JSON.parse(text), RESOURCES, 'all.json'));
  const moved = await testApp({ rateLimit: 0 }, { store: target });
  assert.deepEqual((await moved.call('GET', `/api/import/${job.id}?limit=1000`, { key: user.key })).body.data, job);
  const mine = await exportUser(t.store, (await t.store.get<UserRecord>('users', user.id))!, RESOURCES, Date.now());
  assert.deepEqual([IMPORTS, IMPORT_PARTS, IMPORT_RESULTS].filter((c) => c in mine), []);
  assert.equal((mine.links as unknown[]).length, 3);
});

test('a user with three imports not ended yet is asked to wait (429, Retry-After), and nothing is stored; others may import', async () => {
  const t = await testApp({ rateLimit: 0 });
  const user = await t.makeUser();
  const record = (await t.store.get<UserRecord>('users', user.id))!;
  // Queued without waking a runner: they stay queued.
  for (let i = 0; i < 3; i++) await createImportJob(t, record, { format: importFormat('csv')!, dryRun: false, text: rowsCsv(2, 10 * i + 1) });
  const before = await imports(t);
  const refused = await t.call('POST', '/api/import?format=csv', { key: user.key, raw: rowsCsv(1, 900) });
  assert.deepEqual([refused.status, refused.headers.get('retry-after'), refused.body], [429, '10', { error: 1, message: 'You have 3 imports queued or running: send this one once one of them has ended.' }]);
  assert.equal(await imports(t), before);
  const other = await t.makeUser();
  assert.equal((await t.call('POST', '/api/import?format=csv', { key: other.key, raw: rowsCsv(1, 900) })).status, 202);
});

test('hostile files: each is refused at once or its job ends with the bad rows refused; never a 5xx, no link but valid ones, no polluted prototype', async () => {
  const t = await testApp({ rateLimit: 0 });
  const user = await t.makeUser();
  const bytes = Uint8Array.from({ length: 512 }, (_, i) => (i * 97 + 13) % 256);
  const cases: { format: string; body: string | Uint8Array<ArrayBuffer> }[] = [
    { format: 'csv', body: bytes },
    { format: 'kutt', body: '['.repeat(5000) + ']'.repeat(5000) },
    { format: 'rebrandly', body: '[{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"destination":"https://ok.example/proto","slashtag":"proto-ok"}]' },
    { format: 'csv', body: 'url,alias\nhttps://ok.example/nul\u0000,nul-link\n\ud800,lone\nhttps://ok.example/cr\r\n,crlf\n' },
    { format: 'csv', body: `url,alias\n"${'x'.repeat(70_000)}",long\n` },
    { format: 'csv', body: 'url,alias\nhttps://ok.example/fine,fine-one\n"unterminated,\n' },
    { format: 'yourls', body: ',,,,,,,,,,,,\n\n\n' },
    { format: 'shlink', body: 'longUrl,shortCode\n' + 'https://ok.example/dup,dup-code\n'.repeat(3) },
  ];
  for (const [i, c] of cases.entries()) {
    const res = await t.app.request(`/api/import?format=${c.format}`, { method: 'POST', headers: { authorization: `Bearer ${user.key}`, 'content-type': 'text/csv' }, body: c.body });
    const body = (await res.json()) as Job;
    assert.ok(res.status === 202 || (res.status >= 400 && res.status < 500), `case ${i}: ${res.status} ${JSON.stringify(body)}`);
    if (res.status !== 202) {
      assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], `case ${i}`);
      continue;
    }
    const job = await ended(t, user.key, body.id);
    assert.equal(job.state, 'finished', `case ${i}`);
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const stored = await ownedBy<{ id: number; alias: string; url: string }>(t.store, 'links', user.id);
  // CRLF ends a CSV record: `https://ok.example/cr` is a row of its own, a valid link without an alias.
  assert.deepEqual(stored.map((l) => l.url), ['https://ok.example/proto', 'https://ok.example/cr', 'https://ok.example/dup']);
  assert.deepEqual([stored[0]!.alias, stored[2]!.alias], ['proto-ok', 'dup-code']);
});

test('an Idempotency-Key sent again gives the first job again, and queues no second one', async () => {
  const t = await testApp({ rateLimit: 0 });
  const user = await t.makeUser();
  const send = () => t.call('POST', '/api/import?format=csv', { key: user.key, raw: rowsCsv(2), headers: { 'content-type': 'text/csv', 'idempotency-key': 'import-once' } });
  const first = await send();
  const again = await send();
  assert.deepEqual([first.status, again.status, again.headers.get('idempotent-replayed')], [202, 202, 'true']);
  assert.deepEqual(again.body, first.body);
  await ended(t, user.key, first.body.id);
  assert.equal((await allOf(t.store, IMPORTS)).length, 1);
  assert.equal((await ownedBy(t.store, 'links', user.id)).length, 2);
});
