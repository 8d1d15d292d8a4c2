import { allOf } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import { startServer } from '../src/server.ts';
import type { RunningServer } from '../src/server.ts';
import { PROCESS_ADMIN_KEY, api, startProcess } from './process-helpers.ts';

const ADMIN = 'sk_test_mode_admin_00000000000000';
const USER_KEY = 'sk_test_mode_user_000000000000000';

async function server(testMode: boolean, fixtures?: Record<string, unknown>): Promise<RunningServer> {
  const config = loadConfig({ DATA_DIR: ':memory:', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT: '0', ADMIN_API_KEY: ADMIN, TEST_MODE: testMode ? '1' : '0' });
  return startServer(config, { log: silentLogger, print: () => {}, fixtures });
}

async function call(s: RunningServer, method: string, path: string, key: string | null = ADMIN, body?: unknown) {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await s.app.request(path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const fixtures = {
  users: [
    { id: 1, email: 'admin@example.com', apikey: ADMIN, admin: true },
    { id: 2, email: 'user@example.com', apikey: USER_KEY },
  ],
  links: [{ id: 1, userId: 2, alias: 'start', url: 'https://example.com/start' }],
};

test('TEST_MODE is off by default and /__admin/* is then 404, even for the admin', async () => {
  assert.equal(loadConfig({}).testMode, false);
  const s = await server(false);
  try {
    for (const path of ['/__admin/reset', '/__admin/seed', '/__admin/clock']) {
      const r = await call(s, 'POST', path, ADMIN, {});
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.body, { error: 1, message: 'Endpoint not found.' });
    }
    assert.equal(s.testControl, undefined);
  } finally {
    await s.close();
  }
});

test('the /__admin endpoints want an admin key: 401 without a valid one, 403 for a user, and change nothing then', async () => {
  const s = await server(true, fixtures);
  try {
    const before = JSON.stringify((await allOf(s.store, 'links')));
    for (const [key, status] of [[null, 401], ['sk_not_a_key_at_all_000000', 401], [USER_KEY, 403]] as const) {
      for (const [path, body] of [['/__admin/reset', {}], ['/__admin/seed', { links: [{ id: 5, userId: 2, alias: 'x1', url: 'https://e.com' }] }], ['/__admin/clock', { now: '2030-01-01T00:00:00Z' }]] as const) {
        const r = await call(s, 'POST', path, key, body);
        assert.equal(r.status, status, `${path} with ${key}`);
        assert.equal(r.body.error, 1);
      }
    }
    assert.equal(JSON.stringify((await allOf(s.store, 'links'))), before);
    assert.equal(s.testControl!.clockState().frozen, false);
  } finally {
    await s.close();
  }
});

test('seed adds fixtures; reset goes back to the start with the same aliases and ids', async () => {
  const s = await server(true, fixtures);
  try {
    const initial = JSON.stringify((await allOf(s.store, 'links')));
    const seeded = await call(s, 'POST', '/__admin/seed', ADMIN, { links: [{ id: 9, userId: 2, alias: 'seeded', url: 'https://example.com/seeded' }] });
    assert.deepEqual(seeded, { status: 200, body: { error: 0, message: 'Fixtures loaded.', counts: { links: 1 } } });
    assert.equal((await s.app.request('/seeded')).headers.get('location'), 'https://example.com/seeded');
    const made = await call(s, 'POST', '/api/url/add', USER_KEY, { url: 'https://example.com/made' });
    assert.equal(made.body.id, 10);

    const reset = await call(s, 'POST', '/__admin/reset');
    assert.equal(reset.status, 200);
    assert.equal(JSON.stringify((await allOf(s.store, 'links'))), initial);
    assert.equal((await s.app.request('/seeded')).status, 404);
    const again = await call(s, 'POST', '/api/url/add', USER_KEY, { url: 'https://example.com/made' });
    const first = await call(s, 'POST', '/__admin/reset').then(() => call(s, 'POST', '/api/url/add', USER_KEY, { url: 'https://example.com/made' }));
    assert.equal(again.body.id, 2);
    assert.equal(first.body.shorturl, again.body.shorturl, 'the seeded random source repeats after a reset');
  } finally {
    await s.close();
  }
});

test('seed answers 400 with the problems and stores nothing', async () => {
  const s = await server(true, fixtures);
  try {
    const before = JSON.stringify((await allOf(s.store, 'links')));
    const bad = await call(s, 'POST', '/__admin/seed', ADMIN, { links: [{ id: 2, userId: 2, alias: 'fine', url: 'https://e.com' }, { id: 3, userId: 2, url: 'https://e.com' }], widgets: [] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /unknown collection "widgets"/);
    assert.match(bad.body.message, /links\[1\] \(id 3\): missing "alias"/);
    assert.equal((await call(s, 'POST', '/__admin/seed', ADMIN, 'not json')).status, 400);
    assert.equal((await call(s, 'POST', '/__admin/seed', ADMIN, '[1]')).status, 400);
    assert.equal(JSON.stringify((await allOf(s.store, 'links'))), before);
  } finally {
    await s.close();
  }
});

test('the clock follows the wall clock until set; {now} stops it, {advance} moves it, reset releases it', async () => {
  const s = await server(true, fixtures);
  try {
    const read = await call(s, 'GET', '/__admin/clock');
    assert.equal(read.body.clock.frozen, false);
    assert.ok(Math.abs(read.body.clock.ms - Date.now()) < 5000);
    const set = await call(s, 'POST', '/__admin/clock', ADMIN, { now: '2030-06-01T12:00:00Z' });
    assert.deepEqual(set.body, { error: 0, clock: { now: '2030-06-01T12:00:00.000Z', ms: Date.parse('2030-06-01T12:00:00Z'), frozen: true } });
    const moved = await call(s, 'POST', '/__admin/clock', ADMIN, { advance: 3_600_000 });
    assert.equal(moved.body.clock.now, '2030-06-01T13:00:00.000Z');
    const link = await call(s, 'POST', '/api/url/add', USER_KEY, { url: 'https://example.com/when' });
    assert.equal((await call(s, 'GET', `/api/url/${link.body.id}`, USER_KEY)).body.details.date, '2030-06-01 13:00:00');
    assert.equal((await call(s, 'POST', '/__admin/clock', ADMIN, { now: Date.parse('2031-01-01T00:00:00Z') })).body.clock.now, '2031-01-01T00:00:00.000Z');
    for (const body of [{}, { now: 'soon' }, { advance: '5' }, { now: '2030-01-01T00:00:00Z', advance: 1 }]) {
      const r = await call(s, 'POST', '/__admin/clock', ADMIN, body);
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    assert.equal((await call(s, 'GET', '/__admin/clock')).body.clock.now, '2031-01-01T00:00:00.000Z');
    await call(s, 'POST', '/__admin/reset');
    assert.equal((await call(s, 'GET', '/__admin/clock')).body.clock.frozen, false);
  } finally {
    await s.close();
  }
});

test('a real process: TEST_MODE=1 and SEED from the environment, then SIGTERM exits 0', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'test-mode-'));
  const seed = join(dir, 'fixtures.json');
  await writeFile(seed, JSON.stringify({ links: [{ id: 1, userId: 1, alias: 'seeded', url: 'https://example.com/seeded' }] }));
  const p = await startProcess(':memory:', { TEST_MODE: '1', SEED: seed });
  try {
    assert.match(p.output(), /TEST_MODE is on/);
    // The fixtures have no users: the admin is created after them, with ADMIN_API_KEY, and owns the link (user 1).
    assert.equal((await fetch(`${p.url}/seeded`, { redirect: 'manual' })).headers.get('location'), 'https://example.com/seeded');
    assert.equal((await api(p.url, 'POST', '/__admin/clock', { now: '2030-01-01T00:00:00Z' })).body.clock.frozen, true);
    assert.equal((await api(p.url, 'POST', '/__admin/seed', { links: [{ id: 2, userId: 1, alias: 'more', url: 'https://example.com/more' }] })).status, 200);
    assert.equal((await api(p.url, 'POST', '/__admin/reset')).status, 200);
    assert.equal((await fetch(`${p.url}/more`, { redirect: 'manual' })).status, 404);
    assert.equal((await api(p.url, 'POST', '/__admin/reset', undefined, 'sk_wrong_key_0000000000000')).status, 401);
    assert.equal(PROCESS_ADMIN_KEY.length > 16, true);
  } finally {
    p.child.kill('SIGTERM');
    assert.equal(await p.exit, 0);
  }
});
