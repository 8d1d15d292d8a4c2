/**
 * `export --email` and `import --email` through the real CLI. The round trip into another server
 * runs on both backends (the target a data directory, or a fresh PostgreSQL schema in the
 * PostgreSQL pass); what does not depend on the store (help, errors, the bin shim, suffixes, which
 * cli-import checks on both backends in the process) runs in the file pass only.
 */
import { allOf, ownedBy } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.ts';
import { SUBJECT_KINDS } from '../src/cli/import.ts';
import { fixedClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { seedFixtures } from '../src/fixtures/seed.ts';
import { seededRandom } from '../src/random.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import type { StoredRecord } from '../src/store/store.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { backendEnv, TEST_BACKEND } from './backend.ts';
import { dirTarget, pgTarget, withStore } from './cli-targets.ts';
import { runCli } from './process-helpers.ts';

const filePassOnly = { skip: TEST_BACKEND === 'postgres' ? 'does not depend on the store: run in the file pass' : false };
const tmp = () => mkdtemp(join(tmpdir(), 'cli-data-'));
const ALICE = 'sk_test_alice_0000000000000000';
const NOW = Date.parse('2026-03-01T10:00:00Z');
const open = (dir: string) => FileStore.open({ dir, collections: storeSchema(RESOURCES) });

/** A data directory where alice has one of everything, made through the API, with real clicks, scans and pageviews. */
async function makeSourceDir(): Promise<string> {
  const dir = await tmp();
  const store = await open(dir);
  await seedFixtures(store, { users: [{ id: 1, email: 'admin@example.com', admin: true }, { id: 2, email: 'alice@example.com', apikey: ALICE }, { id: 3, email: 'dave@example.com' }] }, { resources: RESOURCES, now: NOW });
  const app = createApp({ store, config: loadConfig({ DATA_DIR: dir, BASE_URL: 'http://sho.rt', RATE_LIMIT: '0', LOGO_FETCH: 'off' }), clock: fixedClock(NOW), random: seededRandom('cli') });
  const post = async (path: string, body: unknown) => {
    const res = await app.request(path, { method: 'POST', headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await res.json();
    assert.ok(res.status < 300 && !json.error, `${path}: ${JSON.stringify(json)}`);
    return json.id as number;
  };
  const pixel = await post('/api/pixel/add', { type: 'gapixel', name: 'GA', tag: 'G-1' });
  const campaign = await post('/api/campaign/add', { name: 'Launch', slug: 'launch' });
  const channel = await post('/api/channel/add', { name: 'News' });
  const domain = await post('/api/domain/add', { domain: 'https://go.alice.example' });
  const splash = await post('/api/splash/add', { name: 'Wait' });
  const overlay = await post('/api/overlay/add', { type: 'message', name: 'Hey' });
  await post('/api/url/add', { url: 'https://example.com/a', custom: 'alpha', pixels: [pixel], campaign, channel, type: String(splash) });
  await post('/api/url/add', { url: 'https://example.com/b', custom: 'beta', domain: 'https://go.alice.example', type: `overlay-${overlay}` });
  const qr = await post('/api/qr/add', { type: 'link', data: 'https://example.com/qr', name: 'Poster' });
  await app.request(`/api/channel/${channel}/assign/qr/${qr}`, { method: 'POST', headers: { authorization: `Bearer ${ALICE}` } });
  await app.request('/api/v1/websites', { method: 'POST', headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'alice.example' }) });
  const ua = { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', 'cf-ipcountry': 'FR' };
  for (let i = 0; i < 3; i++) await app.request('/alpha', { headers: ua });
  await app.request('/beta', { headers: { ...ua, host: 'go.alice.example' } });
  await app.request(`/qr/${(await store.get('qrs', qr))!.alias}/scan`, { headers: ua });
  await app.request('/r/launch', { headers: ua });
  await app.request('/api/event', { method: 'POST', headers: ua, body: JSON.stringify({ page: 'https://alice.example/pricing' }) });
  await post('/api/keys', { name: 'reader', scopes: ['links:read'] });
  assert.equal(domain, 1);
  await store.close(); // flushes the counters
  return dir;
}

// Made once; a test that writes into it works on a copy.
let made: Promise<string> | undefined;
const sourceDir = () => (made ??= makeSourceDir());
async function sourceCopy(): Promise<string> {
  const dir = await tmp();
  await cp(await sourceDir(), dir, { recursive: true });
  return dir;
}

/** An export with its ids replaced by positions and references by the positions of their targets: what must survive a round trip. */
function normalized(file: Record<string, StoredRecord[]>): Record<string, unknown[]> {
  const position = new Map<string, Map<number, number>>();
  for (const [c, records] of Object.entries(file)) if (Array.isArray(records)) position.set(c, new Map(records.map((r, i) => [r.id, i])));
  const out: Record<string, unknown[]> = {};
  for (const row of RESOURCES.filter((r) => r.owned)) {
    out[row.collection] = (file[row.collection] ?? []).map((r) => {
      const { id, userId: _owner, ...rest } = r;
      const copy: Record<string, unknown> = { ...rest, id: position.get(row.collection)!.get(id) };
      for (const [field, ref] of Object.entries(row.references ?? {})) {
        const at = (x: unknown) => position.get(ref.collection)?.get(x as number);
        if (Array.isArray(copy[field])) copy[field] = (copy[field] as unknown[]).map(at);
        else if (copy[field] !== null && copy[field] !== undefined) copy[field] = at(copy[field]);
      }
      if (typeof copy.subject === 'string') {
        const [kind, n] = copy.subject.split(':');
        copy.subject = `${kind}:${position.get(SUBJECT_KINDS[kind!]!)?.get(Number(n))}`;
      }
      return copy;
    });
  }
  return out;
}

test('export → import into another user of another server → export: the same data, with fresh ids and references that follow', async () => {
  const source = await sourceDir();
  const exported = await runCli(['export', '--email', 'alice@example.com', '--data-dir', source]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(exported.stderr, '', 'no progress when stderr is not a terminal');
  const file = JSON.parse(exported.stdout);
  assert.equal(file.$export.email, 'alice@example.com');
  assert.deepEqual(Object.keys(file.users[0]).sort(), ['admin', 'avatar', 'disabled', 'email', 'expires', 'id', 'planid', 'registered', 'status', 'username']);
  assert.ok(!exported.stdout.includes('keyHash') && !exported.stdout.includes('"password":"!"'), 'neither the key nor the account password');
  // Nor the scoped keys and the audit log: the server's records about the account, carried by export --all only.
  assert.deepEqual([file.api_keys, file.audit], [undefined, undefined]);
  assert.deepEqual(file.links.map((l: { alias: string }) => l.alias), ['alpha', 'beta']);
  const statsOf = (f: { stats: { subject: string; counts: { clicks?: number; pageviews?: number } }[] }) => Object.fromEntries(f.stats.map((s) => [s.subject, s.counts.clicks ?? s.counts.pageviews]));
  assert.deepEqual(statsOf(file), { 'link:1': 4, 'link:2': 1, 'qr:1': 1, 'campaign:1': 1, 'website:1': 1 });

  // The target server (on this pass's backend) already has records, so every id moves.
  const target = TEST_BACKEND === 'postgres' ? pgTarget(backendEnv()) : dirTarget(await tmp());
  await withStore(target, (store) =>
    seedFixtures(store, { users: [{ id: 1, email: 'carol@example.com' }, { id: 2, email: 'bob@example.com' }], pixels: [1, 2, 3].map((id) => ({ id, userId: 1, type: 'bing', name: `c${id}`, tag: 'T' })), links: [{ id: 1, userId: 1, alias: 'carol', url: 'https://c.example' }] }, { resources: RESOURCES, now: NOW }),
  );
  const backup = join(await tmp(), 'backup.json');
  await writeFile(backup, exported.stdout);
  const imported = await runCli(['import', backup, '--email', 'bob@example.com', ...target.args], target.env);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /Imported into user 2 <bob@example.com>: 1 pixels, 1 campaigns, 1 channels, 1 qrs, 1 domains, 1 overlays, 1 splash, 2 links, 1 websites, 5 stats\n$/);

  await withStore(target, async (after) => {
    const bobLinks = await ownedBy<Record<string, any> & { id: number }>(after, 'links', 2); // eslint-style escape: fields checked one by one
    assert.deepEqual(bobLinks.map((l) => [l.id, l.alias]), [[2, 'alpha'], [3, 'beta']]);
    assert.deepEqual(bobLinks[0]!.pixels, [4], 'pixel 1 of the file is pixel 4 here');
    assert.equal(bobLinks[0]!.splashId, (await ownedBy(after, 'splash', 2))[0]!.id);
    assert.equal(bobLinks[1]!.domainId, (await ownedBy(after, 'domains', 2))[0]!.id);
    assert.deepEqual((await ownedBy(after, 'stats', 2)).map((s) => s.subject).sort(), ['campaign:1', 'link:2', 'link:3', 'qr:1', 'website:1']);
    assert.equal((await after.get('links', 1))!.alias, 'carol', "the target's own data is untouched");
  });

  const again = await runCli(['export', '--email', 'bob@example.com', ...target.args], target.env);
  assert.equal(again.code, 0, again.stderr);
  const second = JSON.parse(again.stdout);
  assert.deepEqual(normalized(second), normalized(file));
  assert.notDeepEqual(second.pixels.map((p: StoredRecord) => p.id), file.pixels.map((p: StoredRecord) => p.id));
});

test("import into another user of the same server: taken aliases and slugs get a suffix, a domain stays with its owner, a website joins its domain without its events", filePassOnly, async () => {
  const dir = await sourceCopy();
  const file = join(dir, '..', `alice-${Date.now()}.json`);
  const out = await runCli(['export', '--email', 'alice@example.com', '--output', file, '--progress', '--data-dir', dir]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /Exported \d+ records of alice@example.com to /);
  assert.match(out.stderr, /Exporting alice@example.com \d+\/\d+ \(100%\)/);
  assert.equal((await stat(file)).mode & 0o777, 0o600, 'it holds password hashes: readable by its owner only');
  const r = await runCli(['import', file, '--email', 'dave@example.com', '--progress', '--data-dir', dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Importing into dave@example.com \d+\/\d+ \(100%\)/);
  assert.match(r.stdout, /links 1: alias "alpha" is taken; now "alpha-2"/);
  assert.match(r.stdout, /campaigns 1: slug "launch" is taken; now "launch-2"/);
  assert.match(r.stdout, /domains 1: another user has it: left out; its links use the main host/);
  assert.match(r.stdout, /websites 1: another website has [a-z0-9.-]+: imported, but it receives no events until its ownership is proven/);
  const store = await open(dir);
  try {
    const dave = (await allOf(store, 'users')).find((u) => u.email === 'dave@example.com')!;
    const links = (await ownedBy(store, 'links', dave.id));
    assert.deepEqual(links.map((l) => [l.alias, l.domainId]), [['alpha-2', null], ['beta', null]]);
    const [daves, ...more] = await ownedBy<{ id: number; domain: string; receives?: boolean; verified_at?: string | null }>(store, 'websites', dave.id);
    assert.deepEqual([more.length, daves?.receives, daves?.verified_at], [0, false, null]);
    const alices = (await ownedBy<{ id: number; domain: string; receives?: boolean }>(store, 'websites', 2))[0]!;
    assert.deepEqual([alices.domain, alices.receives !== false], [daves!.domain, true], "alice's website keeps the events");
    assert.ok((await ownedBy<{ id: number; subject: string }>(store, 'stats', dave.id)).some((s) => s.subject === `website:${daves!.id}`), 'its statistics came along');
    assert.deepEqual((await ownedBy(store, 'links', 2)).map((l) => l.alias), ['alpha', 'beta'], "alice's links are untouched");
  } finally {
    await store.close();
  }
});

test('export and import: help, clear errors, exit codes, and nothing written on a failed import', filePassOnly, async () => {
  const dir = await sourceDir();
  const bad = join(dir, '..', `bad-${Date.now()}.json`);
  await writeFile(bad, JSON.stringify({ users: [{ id: 1, email: 'alice@example.com' }], links: [{ id: 1, alias: 'x', url: 'https://e.com' }], gadgets: [] }));
  const linksBefore = await readFile(join(dir, 'links.json'), 'utf8');
  const mem = { DATA_DIR: ':memory:' };
  const cases: [string[], number, RegExp, Record<string, string>?][] = [
    [['import', '--help'], 0, /Usage: npm run cli -- import <file>[\s\S]*new id/],
    [['export'], 2, /Missing --email/, mem],
    [['export', '--email', 'nobody@example.com'], 1, /No user has the email "nobody@example.com"/, mem],
    [['import', 'a.json', 'b.json'], 2, /One file at a time/, mem],
    [['import', '/nonexistent/backup.json'], 1, /does not exist/, mem],
  ];
  const results = await Promise.all(cases.map(([args, , , env]) => runCli(args, env)));
  results.forEach((r, i) => {
    const [args, code, pattern] = cases[i]!;
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout + r.stderr, pattern, args.join(' '));
  });
  const refused = await runCli(['import', bad, '--data-dir', dir]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /unknown collection "gadgets"/);
  assert.equal(await readFile(join(dir, 'links.json'), 'utf8'), linksBefore);
  // A record the API would refuse (a javascript: URL) refuses the whole file, named, before anything is stored.
  const unsafe = join(dir, '..', `unsafe-${Date.now()}.json`);
  await writeFile(unsafe, JSON.stringify({ links: [{ id: 1, userId: 1, alias: 'fine', url: 'https://e.com/ok' }, { id: 2, userId: 1, alias: 'evil', url: 'javascript:alert(1)' }] }));
  const unsafeImport = await runCli(['import', unsafe, '--email', 'alice@example.com', '--data-dir', dir]);
  assert.equal(unsafeImport.code, 1, unsafeImport.stderr);
  assert.match(unsafeImport.stderr, /links\[1\] \(id 2\): "url": /);
  assert.equal(await readFile(join(dir, 'links.json'), 'utf8'), linksBefore, 'not even the valid record');
});

test('the bin shim runs the same CLI', filePassOnly, async () => {
  const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['bin/shortlink-server.js', 'export', '--help'], { cwd: new URL('..', import.meta.url) });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
  assert.equal(r.code, 0);
  assert.match(r.out, /Usage: npm run cli -- export --email <email>[\s\S]*Exit codes: 0 done/);
});
