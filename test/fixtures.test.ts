import { allOf } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey } from '../src/auth/keys.ts';
import { verifyPassword } from '../src/auth/passwords.ts';
import { loadConfig } from '../src/config.ts';
import { NO_PASSWORD, prepareFixtures } from '../src/fixtures/prepare.ts';
import { FixtureError, readFixtures } from '../src/fixtures/read.ts';
import { seedFixtures } from '../src/fixtures/seed.ts';
import { createLogger, silentLogger } from '../src/log.ts';
import { RESOURCES, collectionsOf, storeSchema } from '../src/resources/table.ts';
import { startServer } from '../src/server.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import type { Store } from '../src/store/store.ts';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const tmp = () => mkdtemp(join(tmpdir(), 'fixtures-test-'));
const memory = () => FileStore.open({ dir: ':memory:', collections: storeSchema(RESOURCES) });
const seed = (store: Store, raw: Record<string, unknown>) => seedFixtures(store, raw, { resources: RESOURCES, now: NOW });
const alice = { id: 1, email: 'alice@example.com', apikey: 'sk_test_alice_0000000000000000' };

const invalid: { name: string; fixtures: unknown; message: RegExp }[] = [
  { name: 'an unknown collection is named, with the known ones', fixtures: { users: [alice], linkz: [] }, message: /unknown collection "linkz" \(known: users, links, /s },
  { name: 'a collection that is not an array', fixtures: { links: {} }, message: /"links" must be an array of records/ },
  { name: 'a record that is not an object', fixtures: { links: [7] }, message: /links\[0\]: a record must be an object/ },
  { name: 'an id that is not an integer', fixtures: { links: [{ id: '1', userId: 1, alias: 'a1', url: 'https://e.com' }] }, message: /links\[0\] \(id "1"\): needs an integer "id" of 1 or more/ },
  { name: 'a missing id', fixtures: { pixels: [{ userId: 1, type: 'bing', name: 'n', tag: 't' }] }, message: /pixels\[0\]: needs an integer "id"/ },
  { name: 'an id of 0', fixtures: { pixels: [{ id: 0, userId: 1, type: 'bing', name: 'n', tag: 't' }] }, message: /needs an integer "id" of 1 or more/ },
  { name: 'a duplicate id', fixtures: { users: [alice, { ...alice, email: 'b@example.com' }] }, message: /users\[1\] \(id 1\): duplicate id 1/ },
  { name: 'an owned record without userId', fixtures: { pixels: [{ id: 1, type: 'bing', name: 'n', tag: 't' }] }, message: /needs an integer "userId"/ },
  { name: 'missing required fields', fixtures: { links: [{ id: 1, userId: 1 }] }, message: /links\[0\] \(id 1\): missing "alias", "url"/ },
  { name: 'a reserved alias', fixtures: { links: [{ id: 1, userId: 1, alias: 'api', url: 'https://e.com' }] }, message: /alias "api" is a path of the server itself/ },
  { name: 'a user without email', fixtures: { users: [{ id: 1, apikey: 'sk_test_0000000000000' }] }, message: /users\[0\] \(id 1\): needs an "email"/ },
  { name: 'a user with a bad email', fixtures: { users: [{ id: 1, email: 'nope' }] }, message: /invalid "email"/ },
  { name: 'a user with a too short key', fixtures: { users: [{ id: 1, email: 'a@example.com', apikey: 'short' }] }, message: /"apikey" must be 8 to 256 printable characters/ },
  { name: 'a stats record with a bad subject', fixtures: { stats: [{ id: 1, userId: 1, subject: 'link-1', day: '2026-01-01', counts: {} }] }, message: /"subject" must look like "link:7"/ },
  { name: 'a stats record with a bad day', fixtures: { stats: [{ id: 1, userId: 1, subject: 'link:1', day: '1/1/2026', counts: {} }] }, message: /"day" must be YYYY-MM-DD/ },
  { name: 'two users with one email', fixtures: { users: [alice, { id: 2, email: 'ALICE@example.com', username: 'other' }] }, message: /users id 2: email "ALICE@example.com" is also user 1's/ },
  { name: 'two users with one username', fixtures: { users: [alice, { id: 2, email: 'b@example.com', username: 'alice' }] }, message: /users id 2: username "alice" is also user 1's/ },
  { name: 'an owner that is not a user', fixtures: { users: [alice], links: [{ id: 1, userId: 2, alias: 'a1', url: 'https://e.com' }] }, message: /links id 1: userId 2 is not a user/ },
  {
    name: "a reference to another user's record",
    fixtures: { users: [alice, { id: 2, email: 'bob@example.com' }], campaigns: [{ id: 1, userId: 2, name: 'Bobs' }], links: [{ id: 1, userId: 1, alias: 'a1', url: 'https://e.com', campaign: 1 }] },
    message: /links id 1: campaign 1 is not one of its owner's campaigns/,
  },
  // The API's own rules, field by field: what it would refuse, no way in stores.
  { name: 'a javascript: URL', fixtures: { users: [alice], links: [{ id: 1, userId: 1, alias: 'a1', url: 'javascript:alert(1)' }] }, message: /links\[0\] \(id 1\): "url": / },
  { name: 'a URL with CR/LF', fixtures: { users: [alice], links: [{ id: 1, userId: 1, alias: 'a1', url: 'https://e.com/x\r\nSet-Cookie: a=1' }] }, message: /links\[0\] \(id 1\): "url": / },
  { name: 'a link type the API has no word for', fixtures: { users: [alice], links: [{ id: 1, userId: 1, alias: 'a1', url: 'https://e.com', type: 'popup' }] }, message: /links\[0\] \(id 1\): "type": must be one of direct, frame, splash, overlay/ },
  { name: "a QR code's data that its type refuses", fixtures: { users: [alice], qrs: [{ id: 1, userId: 1, alias: 'q1', type: 'email', data: { email: 'nope' } }] }, message: /qrs\[0\] \(id 1\): "data": data.email: Please enter a valid email/ },
  { name: 'a website domain the API refuses', fixtures: { users: [alice], websites: [{ id: 1, userId: 1, domain: 'not a domain' }] }, message: /websites\[0\] \(id 1\): "domain": / },
  { name: 'a username the API refuses', fixtures: { users: [{ ...alice, username: 'a b' }] }, message: /users\[0\] \(id 1\): "username": Username must be/ },
  { name: 'a reference to nothing', fixtures: { users: [alice], links: [{ id: 1, userId: 1, alias: 'a1', url: 'https://e.com', pixels: [5] }] }, message: /pixels 5 is not one of its owner's pixels/ },
];

test('invalid fixtures: a FixtureError that says where and why, and nothing stored', async (t) => {
  for (const c of invalid) {
    await t.test(c.name, async () => {
      const store = await memory();
      await assert.rejects(seed(store, c.fixtures as Record<string, unknown>), (err: Error) => err instanceof FixtureError && c.message.test(err.message));
      for (const name of collectionsOf(RESOURCES)) assert.equal((await store.count(name)), 0, name);
    });
  }
});

test('every problem is listed at once, and keys starting with $ are metadata', async () => {
  const raw = { $export: { version: 1 }, links: [{ id: 1 }, { id: 2 }], nope: [] };
  await assert.rejects(prepareFixtures(raw, RESOURCES, NOW), (err: Error) => /nope/.test(err.message) && /links\[0\]/.test(err.message) && /links\[1\]/.test(err.message));
});

test("users' plain keys and passwords are hashed; the key works; defaults are what the API would store", async () => {
  const store = await memory();
  await seed(store, {
    users: [{ ...alice, password: 'correct horse' }, { id: 2, email: 'bob@example.com' }],
    links: [{ id: 3, userId: 1, alias: 'minimal', url: 'https://example.com' }],
  });
  const [a, b] = (await allOf(store, 'users'));
  assert.equal(a!.keyHash, hashApiKey(alice.apikey));
  assert.equal(a!.apikey, undefined);
  assert.match(String(a!.password), /^scrypt\$/);
  assert.ok(await verifyPassword('correct horse', String(a!.password)));
  assert.equal(a!.username, 'alice');
  assert.equal(a!.registered, '2026-01-01 00:00:00');
  assert.equal(b!.password, NO_PASSWORD);
  assert.match(String(b!.keyHash), /^[0-9a-f]{64}$/);
  assert.deepEqual((await store.get('links', 3)), {
    id: 3, userId: 1, alias: 'minimal', url: 'https://example.com', date: '2026-01-01 00:00:00', title: '', domainId: null, type: 'direct',
    splashId: null, overlayId: null, password: null, campaign: null, channels: [], pixels: [], status: 'private',
  });
  // Ids continue after the fixtures'.
  const next = await store.transaction((tx) => tx.insert('links', { userId: 1 }));
  assert.equal(next.id, 4);
});

test('a directory of <collection>.json files (a stopped server) reads as fixtures; a live journal is refused', async () => {
  const dir = await tmp();
  const store = await FileStore.open({ dir, collections: storeSchema(RESOURCES) });
  await seed(store, { users: [alice], pixels: [{ id: 2, userId: 1, type: 'bing', name: 'P', tag: 'T' }] });
  const live = readFixtures(dir).then(
    () => null,
    (err: Error) => err.message,
  );
  assert.match(String(await live), /journal entries not yet in its JSON files/);
  await store.close();
  const raw = await readFixtures(dir);
  assert.deepEqual((raw.pixels as { name: string }[]).map((p) => p.name), ['P']);
  assert.equal((raw.users as unknown[]).length, 1);
  const copy = await memory();
  await seed(copy, raw);
  assert.deepEqual(await allOf(copy, 'pixels'), await allOf(store, 'pixels'));
});

test('files that are not fixtures are named in the error', async () => {
  const dir = await tmp();
  await writeFile(join(dir, 'broken.json'), '{"links": [');
  await writeFile(join(dir, 'list.json'), '[]');
  await assert.rejects(readFixtures(join(dir, 'broken.json')), /Invalid fixtures in .*broken\.json: not JSON/);
  await assert.rejects(readFixtures(join(dir, 'list.json')), /expected an object/);
  await assert.rejects(readFixtures(join(dir, 'missing.json')), /missing\.json does not exist/);
  const bad = await tmp();
  await writeFile(join(bad, 'links.json'), '{"collection":"links","seq":0,"nextId":1,"records":[{"alias":"x"}]}');
  await assert.rejects(readFixtures(bad), /links\.json: line 1: every record needs an integer "id"/);
});

test('serve --seed loads into an empty data directory only, and an admin appears when the fixtures have no users', async () => {
  const dir = await tmp();
  const file = join(dir, 'seed.json');
  await writeFile(file, JSON.stringify({ links: [{ id: 1, userId: 1, alias: 'seeded', url: 'https://example.com/seeded' }] }));
  const data = join(dir, 'data');
  const config = loadConfig({ DATA_DIR: data, PORT: '0', HOST: '127.0.0.1', ADMIN_API_KEY: 'sk_seed_admin_000000000000000' }, ['--seed', file]);
  assert.equal(config.seed, file);
  const first = await startServer(config, { log: silentLogger, print: () => {} });
  assert.equal((await first.app.request('/seeded')).status, 302);
  assert.equal((await first.store.get('users', 1))?.email, 'admin@localhost');
  await first.app.request('/api/url/1/delete', { method: 'DELETE', headers: { authorization: 'Bearer sk_seed_admin_000000000000000' } });
  await first.close();

  const lines: string[] = [];
  const second = await startServer(config, { log: createLogger('warn', (l) => lines.push(l)), print: () => {} });
  try {
    assert.equal((await second.store.count('links')), 0, 'the seed is not applied again over existing data');
    assert.match(lines.join('\n'), /not empty: fixtures not loaded/);
  } finally {
    await second.close();
  }
  await assert.rejects(startServer({ ...config, dataDir: ':memory:', seed: join(dir, 'absent.json') }, { log: silentLogger }), FixtureError);
  assert.ok((await readFile(file, 'utf8')).includes('seeded'));
});
