/**
 * `export --all` and `import --all` through the real CLI: a whole store moves from the JSON files
 * to PostgreSQL and back with every id, key hash, password hash and statistic, and a server started
 * on the result takes the old keys and redirects the old short URLs. The PostgreSQL legs run when
 * TEST_DATABASE_URL is set (each in a fresh schema, dropped after); the file legs always.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../src/app.ts';
import { fixedClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { seedFixtures } from '../src/fixtures/seed.ts';
import { seededRandom } from '../src/random.ts';
import { RESOURCES, exportedCollections, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { DATA_COMMANDS } from '../src/cli/data.ts';
import { runExportAll, runImportAll } from '../src/cli/move-data.ts';
import type { Store } from '../src/store/store.ts';
import { FixtureError } from '../src/fixtures/read.ts';
import { runCli, startProcess } from './process-helpers.ts';
import { dirTarget, openTarget, pgTarget, withStore } from './cli-targets.ts';
import type { Target } from './cli-targets.ts';

const PG_URL = process.env.TEST_DATABASE_URL;
const tmp = () => mkdtemp(join(tmpdir(), 'cli-move-'));
const ALICE = 'sk_test_alice_0000000000000000';
const NOW = Date.parse('2026-03-01T10:00:00Z');
// What moves: every collection but the event outbox's (exports leave it out).
const COLLECTIONS = exportedCollections(RESOURCES);

/** An export file as parsed: its header and collection → records. */
type ExportFile = { $export: Record<string, unknown> } & Record<string, Record<string, unknown>[]>;

/** A data directory made through the API: users with keys and a password, links on a branded domain, a password link, QR, campaign, channel, website and statistics of real clicks, scans and pageviews. */
async function sourceDir(): Promise<string> {
  const dir = await tmp();
  const store = await FileStore.open({ dir, collections: storeSchema(RESOURCES) });
  const users = [{ id: 1, email: 'admin@example.com', admin: true }, { id: 2, email: 'alice@example.com', apikey: ALICE, password: 'alice-pass-1' }, { id: 3, email: 'dave@example.com' }];
  await seedFixtures(store, { users }, { resources: RESOURCES, now: NOW });
  const app = createApp({ store, config: loadConfig({ DATA_DIR: dir, BASE_URL: 'http://sho.rt', RATE_LIMIT: '0', LOGO_FETCH: 'off' }), clock: fixedClock(NOW), random: seededRandom('move') });
  const post = async (path: string, body: unknown) => {
    const res = await app.request(path, { method: 'POST', headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await res.json();
    assert.ok(res.status < 300 && !json.error, `${path}: ${JSON.stringify(json)}`);
    return json.id as number;
  };
  const campaign = await post('/api/campaign/add', { name: 'Launch', slug: 'launch' });
  const channel = await post('/api/channel/add', { name: 'News' });
  await post('/api/pixel/add', { type: 'gapixel', name: 'GA', tag: 'G-1' });
  await post('/api/domain/add', { domain: 'https://go.alice.example' });
  await post('/api/url/add', { url: 'https://example.com/a', custom: 'alpha', campaign, channel });
  await post('/api/url/add', { url: 'https://example.com/b', custom: 'beta', domain: 'https://go.alice.example' });
  await post('/api/url/add', { url: 'https://example.com/secret', custom: 'secret', password: 'open sesame' });
  const qr = await post('/api/qr/add', { type: 'link', data: 'https://example.com/qr', name: 'Poster' });
  const site = await app.request('/api/v1/websites', { method: 'POST', headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'alice.example' }) });
  assert.equal(site.status, 201);
  const ua = { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', 'cf-ipcountry': 'FR' };
  for (let i = 0; i < 3; i++) assert.equal((await app.request('/alpha', { headers: ua })).status, 302);
  assert.equal((await app.request('/beta', { headers: { ...ua, host: 'go.alice.example' } })).status, 302);
  await app.request(`/qr/${(await store.get('qrs', qr))!.alias}/scan`, { headers: ua });
  await app.request('/api/event', { method: 'POST', headers: ua, body: JSON.stringify({ page: 'https://alice.example/pricing' }) });
  const key = await app.request('/api/keys', { method: 'POST', headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'reader', scopes: ['links:read'] }) });
  scopedKey = ((await key.json()) as { apikey: string }).apikey;
  await store.close(); // flushes the counters and the audit log
  return dir;
}

/** Alice's scoped key (links:read), made in the source directory: it must work wherever the data moves. */
let scopedKey = '';

/** A fresh PostgreSQL schema's settings for a CLI or server process; dropped after this file's tests. */
const schemas: string[] = [];
function pgEnv(): Record<string, string> {
  const name = `t_move_${process.pid}_${schemas.length}_${Math.random().toString(36).slice(2, 8)}`;
  schemas.push(name);
  return { DATABASE_URL: PG_URL!, DATABASE_SCHEMA: name };
}
after(async () => {
  if (schemas.length === 0) return;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  } finally {
    await admin.end();
  }
});


async function exportAll(from: Target): Promise<{ file: ExportFile; path: string; stdout: string }> {
  const path = join(await tmp(), 'all.json');
  const r = await runCli(['export', '--all', '--output', path, ...from.args], from.env);
  assert.equal(r.code, 0, r.stderr);
  return { file: JSON.parse(await readFile(path, 'utf8')), path, stdout: r.stdout };
}

/** The source data directory and its export, made once: every test reads them, none writes them. */
let shared: Promise<{ dir: string; export: Awaited<ReturnType<typeof exportAll>> }> | undefined;
function source() {
  shared ??= sourceDir().then(async (dir) => ({ dir, export: await exportAll(dirTarget(dir)) }));
  return shared;
}

async function importAll(path: string, into: Target): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli(['import', '--all', path, ...into.args], into.env);
}

/** The file without the moment it was written: what must be equal after a round trip. */
function content(file: ExportFile): Record<string, unknown> {
  const { exportedAt, ...header } = file.$export;
  assert.match(String(exportedAt), /^\d{4}-\d{2}-\d{2}T/);
  return { ...file, $export: header };
}



/** Counts of every collection the store behind `target` holds. */
const countsOf = (target: Target): Promise<Record<string, number>> =>
  withStore(target, async (store) => Object.fromEntries(await Promise.all(COLLECTIONS.map(async (c) => [c, await store.count(c)] as const))));

/** What `export --all` writes to stdout for `store`. */
async function exportText(store: Store): Promise<string> {
  let text = '';
  await runExportAll(store, {}, () => {}, { positionals: [], write: (piece) => void (text += piece), stderr: { write: () => {} } });
  return text;
}
const EMPTY = Object.fromEntries(COLLECTIONS.map((c) => [c, 0]));

/** A GET with any Host header, not following redirects. */
function get(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
    });
    req.on('error', reject).end();
  });
}

/** Starts a real server on what was imported and checks that the old key, short URLs, password and statistics work. */
async function checkServer(dir: string, env: Record<string, string>): Promise<void> {
  const server = await startProcess(dir, env);
  try {
    const headers = { authorization: `Bearer ${ALICE}` };
    const links = await fetch(`${server.url}/api/urls?limit=10`, { headers });
    assert.equal(links.status, 200, 'the old API key works');
    const body = await links.json();
    assert.deepEqual(body.data.urls.map((l: { alias: string }) => l.alias).sort(), ['alpha', 'beta', 'secret']);
    const alpha = await (await fetch(`${server.url}/api/url/${body.data.urls.find((l: { alias: string }) => l.alias === 'alpha').id}`, { headers })).json();
    assert.equal(alpha.data.clicks, 3, 'the clicks counted before the move are there');
    const redirect = await get(server.url, '/alpha');
    assert.equal(redirect.status, 302);
    assert.equal(redirect.location, 'https://example.com/a');
    const branded = await get(server.url, '/beta', { host: 'go.alice.example' });
    assert.equal(branded.status, 302, 'the branded domain still serves its link');
    assert.equal(branded.location, 'https://example.com/b');
    const form = await get(server.url, '/secret');
    assert.equal(form.status, 200);
    assert.match(form.body, /<form method="post"/);
    const right = await fetch(`${server.url}/secret`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=open+sesame' });
    assert.equal(right.status, 200, 'the link password hash came along');
    assert.match(await right.text(), /url=\/secret/);
    const bad = await fetch(`${server.url}/api/urls`, { headers: { authorization: 'Bearer sk_not_a_key_000000000000000' } });
    assert.equal(bad.status, 401);
    // The scoped key came along, with its scopes; so did the audit log.
    const scoped = { authorization: `Bearer ${scopedKey}` };
    assert.equal((await fetch(`${server.url}/api/urls`, { headers: scoped })).status, 200, 'the scoped key works');
    assert.equal((await fetch(`${server.url}/api/url/add`, { method: 'POST', headers: { ...scoped, 'content-type': 'application/json' }, body: '{"url":"https://example.com/x"}' })).status, 403);
    const audit = await (await fetch(`${server.url}/api/audit?limit=100`, { headers })).json();
    assert.deepEqual(audit.data.entries.map((e: { route: string }) => e.route).slice(0, 2), ['/api/keys', '/api/v1/websites']);
  } finally {
    server.child.kill('SIGTERM');
    await server.exit;
  }
}

test('file → file: export --all, import --all into an empty data directory, export again: equal; a server on it takes the old key and redirects', async () => {
  const first = (await source()).export;
  assert.match(first.stdout, /^Exported \d+ records \(3 users, 3 links, 1 qrs, 1 pixels, 1 campaigns, 1 channels, 1 domains, 1 websites, 1 api_keys, 10 audit, \d+ stats\) to /);
  assert.ok(!/keyHash|scrypt/.test(first.stdout), 'no hash on the terminal');
  assert.equal((await stat(first.path)).mode & 0o777, 0o600, 'the export holds hashes: only its owner reads it');
  const file = first.file;
  assert.deepEqual(Object.keys(file), ['$export', ...COLLECTIONS]);
  assert.equal(file.$export.all, true);
  assert.deepEqual(file.$export.counts, Object.fromEntries(COLLECTIONS.map((c) => [c, file[c]!.length])));
  const alice = file.users!.find((u) => u.email === 'alice@example.com')!;
  assert.equal(alice.id, 2);
  assert.match(String(alice.keyHash), /^[0-9a-f]{64}$/, 'the key hash is exported');
  assert.match(String(alice.password), /^scrypt\$/, 'the password hash is exported');
  assert.deepEqual(file.links!.map((l) => [l.id, l.alias]), [[1, 'alpha'], [2, 'beta'], [3, 'secret']]);
  const clicks = Object.fromEntries(file.stats!.map((s) => [s.subject, (s.counts as Record<string, number>).clicks ?? (s.counts as Record<string, number>).pageviews]));
  assert.deepEqual(clicks, { 'link:1': 3, 'link:2': 1, 'qr:1': 1, 'website:1': 1 });
  const text = await readFile(first.path, 'utf8');
  assert.equal(text.split('\n').filter((l) => l.startsWith('{"id":')).length, COLLECTIONS.reduce((n, c) => n + file[c]!.length, 0), 'one record per line');

  const target = await tmp();
  const imported = await importAll(first.path, dirTarget(target));
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /^Imported 3 users, 3 links, .* stats, ids kept\.\n$/);
  // Without --output the export itself is stdout, and nothing else is.
  const piped = await runCli(['export', '--all', '--data-dir', target]);
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stderr, '');
  assert.deepEqual(content(JSON.parse(piped.stdout)), content(file));
  await checkServer(target, {});
});

test('file → PostgreSQL → file: both exports equal record for record; a server on PostgreSQL takes the old key, redirects, shows the stats', { skip: PG_URL ? false : 'TEST_DATABASE_URL is not set: the PostgreSQL round trip is skipped' }, async () => {
  const first = (await source()).export;
  const db = pgTarget(pgEnv());
  const imported = await importAll(first.path, db);
  assert.equal(imported.code, 0, imported.stderr);
  assert.deepEqual(await countsOf(db), first.file.$export.counts, 'every record is in PostgreSQL');
  const fromPg = await exportAll(db);
  assert.deepEqual(content(fromPg.file), content(first.file), 'PostgreSQL gives back what the files held');

  // Back to files through the same commands in this process (the CLI's file legs are the test above's).
  const back = dirTarget(await tmp());
  await withStore(back, (store) => runImportAll(store, fromPg.path, () => {}));
  const fromFiles = await withStore(back, (store) => exportText(store));
  assert.deepEqual(content(JSON.parse(fromFiles)), content(fromPg.file), 'and the files give back what PostgreSQL held');

  await checkServer(await tmp(), db.env);
  // Ids continue after the imported ones: a new record is not given an old id.
  const next = await withStore(db, (store) => store.transaction((tx) => tx.insert('users', { username: 'new', email: 'new@example.com' })));
  assert.equal(next.id, 4);
});

for (const backend of ['file', 'postgres'] as const) {
  const skip = backend === 'postgres' && !PG_URL ? 'TEST_DATABASE_URL is not set: the PostgreSQL refusals are skipped' : false;
  const target = async () => (backend === 'file' ? dirTarget(join(await tmp(), 'data')) : pgTarget(pgEnv()));

  test(`${backend}: import --all into a store that holds data is refused and changes nothing`, { skip }, async () => {
    const into = await target();
    await withStore(into, (store) => store.transaction((tx) => tx.insert('users', { username: 'ada', email: 'ada@example.com' })));
    const r = await importAll((await source()).export.path, into);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^The target already holds data \(1 users\): import --all fills an empty store only\./);
    assert.deepEqual(await countsOf(into), { ...EMPTY, users: 1 });
    assert.deepEqual(await withStore(into, async (store) => (await store.get('users', 1))?.email), 'ada@example.com');
  });

  test(`${backend}: a bad header or a bad file is refused with a clear message and the store stays empty`, { skip }, async () => {
    const good = (await source()).export;
    const dir = await tmp();
    const text = await readFile(good.path, 'utf8');
    const header = (patch: Record<string, unknown>) => text.replace(/^"\$export":.*,$/m, `"$export":${JSON.stringify({ ...good.file.$export, ...patch })},`);
    const lines = text.split('\n');
    // [file, text, message, whether it gets past the file checks to the store (then run on both backends)]
    const cases: [string, string, RegExp, boolean?][] = [
      ['format.json', header({ format: 'something-else' }), /is not an export of this server \(format "something-else"/],
      ['version.json', header({ version: 2 }), /is an export of version 2; this server reads version 1/],
      ['one-user.json', header({ all: undefined, email: 'alice@example.com' }), /is the export of one user \(alice@example.com\): add it to a user with `import <file> --email <email>`/],
      ['no-header.json', JSON.stringify({ users: [] }), /has no "\$export" header/],
      ['cut.json', lines.slice(0, lines.findIndex((l) => l.startsWith('"links"')) + 2).join('\n'), /ends early, after line \d+ \(a copy cut short\?\)/, true],
      ['not-json.json', text.replace('{"id":1,"userId":2', '{"id":1,"userId":2,,'), /line \d+: the record is not valid JSON/],
      ['owner.json', text.replace('{"id":1,"userId":2', '{"id":1,"userId":99'), /Invalid export .*; nothing was imported:\n {2}[a-z]+ record 1 \(id 1\) belongs to user 99, who is not in the file/, true],
      ['counts.json', header({ counts: { ...(good.file.$export.counts as object), links: 7 } }), /links: the header counts 7 records, the file holds 3/],
      ['gadgets.json', text.replace('"links":[', '"gadgets":[],\n"links":['), /unknown collection "gadgets"/],
      ['missing.json', '', /Cannot read .*missing.json: it does not exist/],
      // Passes every check of the file but the store's unique index: the one transaction is undone.
      ['twice.json', text.replace('"email":"dave@example.com"', '"email":"alice@example.com"'), /Two users records in the file have the same email; nothing was imported\./, true],
    ];
    // The checks of the file come before the store is touched: once (file) is enough for them.
    for (const [name, body, message, store] of cases) {
      if (backend === 'postgres' && !store) continue;
      const path = join(dir, name);
      if (name !== 'missing.json') await writeFile(path, body);
      const into = await target();
      const opened = await openTarget(into);
      try {
        await assert.rejects(runImportAll(opened, path, () => assert.fail('nothing imported, nothing said')), (err: Error) => {
          assert.ok(err instanceof FixtureError, `${name}: ${err.stack}`);
          assert.match(err.message, message, name);
          assert.ok(!/scrypt|keyHash|[0-9a-f]{64}/.test(err.message), `${name}: no hash in the message`);
          return true;
        });
      } finally {
        await opened.close();
      }
      assert.deepEqual(await countsOf(into), EMPTY, `${name}: the store is still empty`);
    }
    // And once through the real CLI: exit code 1, the message alone on stderr, no stack.
    const into = await target();
    const r = await importAll(join(dir, 'twice.json'), into);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.stderr, 'Two users records in the file have the same email; nothing was imported.\n');
    assert.equal(r.stdout, '');
    assert.deepEqual(await countsOf(into), EMPTY);
  });
}

test('export --all and import --all: help and command-line errors', async () => {
  const help = (name: string) => DATA_COMMANDS.find((c) => c.name === name)!;
  assert.match(help('export').usage, /^export --email <email> \| --all /);
  assert.match(help('export').details!, /--all writes the whole store[\s\S]*docs\/postgresql.md#moving-to-postgresql/);
  assert.match(help('import').details!, /--all reads a file of `export --all` into an EMPTY store/);
  const dir = await tmp();
  const cases: [string[], number, RegExp][] = [
    [['export', '--all', '--email', 'a@example.com', '--data-dir', ':memory:'], 2, /^--all exports every user: leave out --email\.\nUsage: export/],
    [['import', 'x.json', '--all', '--email', 'a@example.com', '--data-dir', ':memory:'], 2, /^--all imports every user of the file with its own id: leave out --email\./],
    // A failed export to a file says why and leaves no half-written file behind.
    [['export', '--all', '--output', join(dir, 'missing-dir', 'all.json'), '--data-dir', ':memory:'], 1, /^Cannot write the export to .*all\.json: ENOENT[^\n]*\n$/],
  ];
  const results = await Promise.all(cases.map(([args]) => runCli(args)));
  results.forEach((r, i) => {
    const [args, code, pattern] = cases[i]!;
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern, args.join(' '));
  });
  assert.deepEqual(await readdir(dir), []);
});

test('import --all also reads an export that was pretty-printed by hand (parsed whole, not line by line)', async () => {
  const good = (await source()).export;
  const path = join(await tmp(), 'pretty.json');
  await writeFile(path, JSON.stringify(good.file, null, 2));
  const into = dirTarget(join(await tmp(), 'data'));
  const store = await openTarget(into);
  const said: string[] = [];
  try {
    await runImportAll(store, path, (line) => said.push(line));
  } finally {
    await store.close();
  }
  assert.match(said.join('\n'), /^Imported 3 users, 3 links, .*, ids kept\.$/);
  assert.deepEqual(await countsOf(into), good.file.$export.counts);
});
