import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey } from '../src/auth/keys.ts';
import { FAKE_ADMIN_KEY, FixtureError, startFakeServer } from '../src/fake/index.ts';
import type { FakeServer } from '../src/fake/index.ts';

const ALICE = 'sk_test_alice_0000000000000000';
const BOB = 'sk_test_bob_00000000000000000';

async function call(fake: FakeServer, method: string, path: string, key: string | null = ALICE, body?: unknown) {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fake.app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text, headers: res.headers };
}

const twoUsers = { users: [{ email: 'alice@example.com', apikey: ALICE, admin: true }, { email: 'bob@example.com', apikey: BOB }] };

test('the README example is test/fake-example.test.ts, word for word', async () => {
  const readme = await readFile(new URL('../src/fake/README.md', import.meta.url), 'utf8');
  const example = await readFile(new URL('./fake-example.test.ts', import.meta.url), 'utf8');
  const block = /## A complete example \(node:test\)[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.equal(block, example);
});

test('without users the fake has one admin with FAKE_ADMIN_KEY; it listens on loopback and closes', async () => {
  const fake = await startFakeServer();
  const account = await fetch(`${fake.url}/api/account`, { headers: { authorization: `Bearer ${FAKE_ADMIN_KEY}` } });
  assert.equal(account.status, 200);
  assert.equal((await account.json()).data.email, 'admin@localhost');
  assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(fake.config.baseUrl, `http://localhost:${fake.port}`);
  await fake.close();
  await assert.rejects(fetch(`${fake.url}/health`));
});

test('users get their keys (stored hashed), ids in the order given, and only admins see users', async () => {
  const fake = await startFakeServer(twoUsers);
  try {
    const users = fake.store.all('users');
    assert.deepEqual(users.map((u) => [u.id, u.email, u.admin]), [[1, 'alice@example.com', true], [2, 'bob@example.com', false]]);
    assert.equal(users[0]!.keyHash, hashApiKey(ALICE));
    assert.ok(!JSON.stringify(users).includes(ALICE), 'no plain key is stored');
    assert.equal((await call(fake, 'GET', '/api/users', BOB)).status, 403);
    assert.equal((await call(fake, 'GET', '/api/users', ALICE)).body.data.length, 2);
  } finally {
    await fake.close();
  }
});

test('the same seed gives the same aliases in two fakes; another seed other aliases', async () => {
  const aliasesOf = async (seed?: string) => {
    const fake = await startFakeServer({ ...twoUsers, seed });
    try {
      const out = [];
      for (const n of [1, 2, 3]) out.push((await call(fake, 'POST', '/api/url/add', ALICE, { url: `https://example.com/${n}` })).body.shorturl.split('/').pop());
      const qr = (await call(fake, 'POST', '/api/qr/add', ALICE, { type: 'text', data: 'hi' })).body.link;
      return [...out, qr.split('/').pop()];
    } finally {
      await fake.close();
    }
  };
  const first = await aliasesOf();
  assert.deepEqual(await aliasesOf(), first);
  assert.notDeepEqual(await aliasesOf('another'), first);
});

test('reset() restores the initial data exactly: records, ids, aliases, clock, statistics, visitors', async () => {
  const fake = await startFakeServer({
    ...twoUsers,
    fixtures: { links: [{ id: 1, userId: 1, alias: 'guide', url: 'https://example.com/guide' }], pixels: [{ id: 4, userId: 2, type: 'bing', name: 'B', tag: 'T' }] },
  });
  try {
    const initial = JSON.stringify(['users', 'links', 'pixels', 'stats'].map((c) => fake.store.all(c)));
    const ua = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0' };
    const firstRun = async () => {
      const made = (await call(fake, 'POST', '/api/url/add', ALICE, { url: 'https://example.com/new' })).body;
      assert.equal((await fake.app.request('/guide', { headers: ua })).status, 302);
      const link = (await call(fake, 'GET', '/api/url/1')).body.data;
      return { made, clicks: [link.clicks, link.uniqueClicks] };
    };
    const run1 = await firstRun();
    assert.deepEqual(run1.clicks, [1, 1]);
    assert.equal(run1.made.id, 2);
    await call(fake, 'DELETE', '/api/pixel/4/delete', BOB);
    fake.clock.advance(86_400_000);
    await fake.reset();

    assert.equal(JSON.stringify(['users', 'links', 'pixels', 'stats'].map((c) => fake.store.all(c))), initial);
    assert.equal(fake.clock.now(), Date.parse('2026-01-01T00:00:00Z'));
    // The click buffered before the reset is gone, and the same visitor is new again.
    const run2 = await firstRun();
    assert.deepEqual(run2, run1);
  } finally {
    await fake.close();
  }
});

test('seed() adds fixtures, from an object or a file; invalid fixtures throw and store nothing', async () => {
  const fake = await startFakeServer(twoUsers);
  try {
    assert.deepEqual(await fake.seed({ links: [{ id: 7, userId: 2, alias: 'bobs', url: 'https://example.org/b' }] }), { links: 1 });
    assert.equal((await fake.app.request('/bobs')).headers.get('location'), 'https://example.org/b');
    const file = join(await mkdtemp(join(tmpdir(), 'fake-test-')), 'more.json');
    await writeFile(file, JSON.stringify({ channels: [{ id: 1, userId: 1, name: 'Reading' }] }));
    await fake.seed(file);
    assert.deepEqual((await call(fake, 'GET', '/api/channels')).body.data.channels.map((c: { name: string }) => c.name), ['Reading']);
    const before = JSON.stringify(fake.store.all('links'));
    await assert.rejects(fake.seed({ links: [{ id: 8, userId: 1, alias: 'ok', url: 'https://example.org' }, { id: 'x' }] }), FixtureError);
    await assert.rejects(fake.seed({ links: [{ id: 9, userId: 99, alias: 'nobody', url: 'https://example.org' }] }), /userId 99 is not a user/);
    await assert.rejects(fake.seed({ users: [{ id: 5, email: 'Alice@example.com', apikey: 'sk_test_other_000000000000' }] }), /email "Alice@example.com" is also user 1's/);
    assert.equal(fake.store.count('users'), 2);
    assert.equal(JSON.stringify(fake.store.all('links')), before);
    // seed() is not part of the initial state.
    await fake.reset();
    assert.equal(fake.store.count('links'), 0);
  } finally {
    await fake.close();
  }
});

test('the clock is fixed at `now`, moves only when told, and dates follow it', async () => {
  const fake = await startFakeServer({ ...twoUsers, now: '2026-05-01T08:00:00Z' });
  try {
    const dateOf = async () => (await call(fake, 'GET', `/api/url/${(await call(fake, 'POST', '/api/url/add', ALICE, { url: `https://example.com/${Math.random()}` })).body.id}`)).body.details.date;
    assert.equal(await dateOf(), '2026-05-01 08:00:00');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await dateOf(), '2026-05-01 08:00:00');
    fake.clock.advance(90_000);
    assert.equal(await dateOf(), '2026-05-01 08:01:30');
    fake.clock.set('2027-02-03T04:05:06Z');
    assert.equal(await dateOf(), '2027-02-03 04:05:06');
    assert.equal(fake.clock.now(), Date.parse('2027-02-03T04:05:06Z'));
  } finally {
    await fake.close();
  }
});

test('rate limits are off by default, configurable, windowed by the fake clock, and cleared by reset', async () => {
  const off = await startFakeServer(twoUsers);
  try {
    for (let i = 0; i < 50; i++) assert.equal((await call(off, 'GET', '/api/account')).status, 200);
  } finally {
    await off.close();
  }
  const fake = await startFakeServer({ ...twoUsers, rateLimit: { link: 2, windowSeconds: 60 } });
  try {
    const statuses = async () => [0, 1, 2].map(async () => (await call(fake, 'GET', '/api/account')).status);
    assert.deepEqual(await Promise.all(await statuses()), [200, 200, 429]);
    fake.clock.advance(60_000);
    assert.equal((await call(fake, 'GET', '/api/account')).status, 200);
    await call(fake, 'GET', '/api/account');
    assert.equal((await call(fake, 'GET', '/api/account')).status, 429);
    await fake.reset();
    assert.equal((await call(fake, 'GET', '/api/account')).status, 200);
  } finally {
    await fake.close();
  }
});

test('wrong-password limits are off in the fake unless asked for, and then windowed by its clock', async () => {
  const guess = (fake: FakeServer, password: string) =>
    fake.app.request('/vault', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `password=${password}` });
  for (const [limits, expected] of [[undefined, [...Array(12).fill(403), 200]], [{ passwordAttempts: 2 }, [403, 403, ...Array(10).fill(429), 429]]] as const) {
    const fake = await startFakeServer({ ...twoUsers, ...(limits ? { rateLimit: limits } : {}) });
    try {
      assert.equal((await call(fake, 'POST', '/api/url/add', ALICE, { url: 'https://example.com/v', custom: 'vault', password: 'pw' })).status, 200);
      const got = [];
      for (let i = 0; i < 12; i++) got.push((await guess(fake, `no-${i}`)).status);
      got.push((await guess(fake, 'pw')).status);
      assert.deepEqual(got, expected);
      if (limits) {
        fake.clock.advance(60_000);
        assert.equal((await guess(fake, 'pw')).status, 200, 'the window ends on the fake clock');
      }
    } finally {
      await fake.close();
    }
  }
});

test('fixtures given as a path load at start; bad fixtures refuse the start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fake-test-'));
  const file = join(dir, 'fixtures.json');
  await writeFile(file, JSON.stringify({ users: [{ id: 3, email: 'carol@example.com', apikey: 'sk_test_carol_000000000000' }], pixels: [{ id: 1, userId: 3, type: 'bing', name: 'P', tag: 'T' }] }));
  const fake = await startFakeServer({ fixtures: file });
  try {
    assert.equal((await call(fake, 'GET', '/api/pixels', 'sk_test_carol_000000000000')).body.data.pixels[0].name, 'P');
    // The fixtures have users: no admin@localhost is added.
    assert.deepEqual(fake.store.all('users').map((u) => u.email), ['carol@example.com']);
  } finally {
    await fake.close();
  }
  await assert.rejects(startFakeServer({ fixtures: { nope: [] } }), /unknown collection "nope"/);
  await assert.rejects(startFakeServer({ fixtures: join(dir, 'missing.json') }), /does not exist/);
});

test('the fake locates visitors as the server does: the country of a forwarded address, the header first; GEOIP off leaves the header only', async () => {
  for (const [geoip, want] of [[true, { 'United States': 1, Germany: 1 }], [false, { Unknown: 1, Germany: 1 }]] as const) {
    const fake = await startFakeServer({ ...twoUsers, config: { trustProxy: true, geoip } });
    try {
      const link = await call(fake, 'POST', '/api/url/add', ALICE, { url: 'https://example.com/', custom: 'located' });
      const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
      const visitors: Record<string, string>[] = [{ 'x-forwarded-for': '8.8.8.8' }, { 'x-forwarded-for': '8.8.4.4', 'cf-ipcountry': 'DE' }];
      for (const headers of visitors) {
        assert.equal((await fake.app.request('/located', { headers: { 'user-agent': browser, ...headers } })).status, 302);
      }
      const got = await call(fake, 'GET', `/api/url/${link.body.id}`);
      assert.deepEqual(got.body.data.topCountries, want, `geoip ${geoip}`);
    } finally {
      await fake.close();
    }
  }
});

test('an import runs in the fake as in the server, with its seeded aliases; reset() forgets the job and its links', async () => {
  const fake = await startFakeServer(twoUsers);
  try {
    const importOnce = async () => {
      const res = await fake.app.request('/api/import?format=csv', { method: 'POST', headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'text/csv' }, body: 'url,alias\nhttps://example.com/a,imported-a\nhttps://example.com/b,\n' });
      const { id } = (await res.json()) as { id: number };
      assert.equal(res.status, 202);
      let job: { state: string; report: { rows: { alias: string }[] } } | undefined;
      for (let i = 0; i < 200 && job?.state !== 'finished'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        job = (await call(fake, 'GET', `/api/import/${id}`)).body.data;
      }
      assert.equal(job?.state, 'finished');
      return job!.report.rows.map((r) => r.alias);
    };
    const first = await importOnce();
    assert.equal(first[0], 'imported-a');
    assert.equal(fake.store.all('links').length, 2);
    await fake.reset();
    assert.deepEqual([fake.store.all('links'), fake.store.all('imports')], [[], []]);
    assert.deepEqual(await importOnce(), first, 'the same seed, the same generated alias');
  } finally {
    await fake.close();
  }
});
