import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeServer } from 'shortlink-analytics-server/fake';
import type { FakeServer } from 'shortlink-analytics-server/fake';

const KEY = 'sk_test_alice_0000000000000000';
let fake: FakeServer;

// The code under test: it only knows the API's base URL and a key.
async function shorten(api: string, url: string): Promise<string> {
  const res = await fetch(`${api}/api/url/add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
  const body = await res.json();
  if (body.error) throw new Error(body.message);
  return body.shorturl;
}

before(async () => {
  fake = await startFakeServer({
    users: [{ email: 'alice@example.com', apikey: KEY }],
    fixtures: { links: [{ id: 1, userId: 1, alias: 'guide', url: 'https://example.com/guide', expiry: '2026-01-08 00:00:00' }] },
    now: '2026-01-01T00:00:00Z',
    baseUrl: 'https://sho.rt',
  });
});
beforeEach(() => fake.reset());
after(() => fake.close());

test('a new short link gets the same alias on every run', async () => {
  assert.equal(await shorten(fake.url, 'https://example.com/pricing'), 'https://sho.rt/g8GckV');
  assert.equal(await shorten(fake.url, 'https://example.com/blog'), 'https://sho.rt/sJH4r3');
});

test('reset() brings back the fixtures and nothing else, and the same aliases', async () => {
  assert.equal(await shorten(fake.url, 'https://example.com/other'), 'https://sho.rt/g8GckV');
  const res = await fake.app.request('/api/urls', { headers: { authorization: `Bearer ${KEY}` } });
  const body = await res.json();
  assert.deepEqual(body.data.urls.map((u: { alias: string }) => u.alias).sort(), ['g8GckV', 'guide']);
});

test('fixture links redirect and count their clicks, without a socket', async () => {
  const res = await fake.app.request('/guide', { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0' } });
  assert.equal(res.status, 302);
  assert.equal(res.headers.get('location'), 'https://example.com/guide');
  const stats = await (await fake.app.request('/api/url/1', { headers: { authorization: `Bearer ${KEY}` } })).json();
  assert.equal(stats.data.clicks, 1);
});

test('the clock stands still until the test moves it', async () => {
  assert.equal((await fake.app.request('/guide')).status, 302);
  fake.clock.advance(7 * 24 * 3600 * 1000);
  assert.equal((await fake.app.request('/guide')).status, 410);
});
