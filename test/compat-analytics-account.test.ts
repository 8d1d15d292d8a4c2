import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

// Issue 16, item 12: GET /api/v1/account in the analytics product's shape.
test('GET /api/v1/account answers the key\'s account in the analytics product\'s shape', async () => {
  const t = await testApp();
  const alice = await t.makeUser('alice');
  const r = await t.call('GET', '/api/v1/account', { key: alice.key, headers: { accept: 'application/json' } });
  assert.equal(r.status, 200, r.text);
  const stored = await t.store.get('users', alice.id);
  assert.deepEqual(r.body, {
    data: {
      id: alice.id,
      name: 'user_alice',
      email: 'user_alice@example.com',
      avatar_url: stored?.avatar,
      locale: 'en',
      timezone: 'UTC',
      plan: { id: 1, name: 'Default', features: { pageviews: -1, websites: -1, api: true, data_export: true } },
      created_at: '2026-11-21T10:00:00.000000Z',
    },
    status: 200,
  });
  assert.match(String(r.body.data.avatar_url), /^https:\/\/www\.gravatar\.com\/avatar\//);
  assert.ok(r.headers.get('x-ratelimit-limit'), 'the analytics rate limit applies');
});

test('a user on a plan shows it; the account is the key\'s own', async () => {
  const t = await testApp();
  const made = await t.call('POST', '/api/user/add', { body: { username: 'planned', email: 'p@example.com', password: 'secret-pw', planid: 2 } });
  assert.equal(made.status, 200, made.text);
  const r = await t.call('GET', '/api/v1/account', { key: made.body.data.apikey });
  assert.deepEqual(r.body.data.plan, { id: 2, name: 'Pro', features: { pageviews: -1, websites: -1, api: true, data_export: true } });
  assert.equal(r.body.data.email, 'p@example.com');
});

test('without a valid key: the analytics 401, in either error-status mode; other methods 405; nothing stored', async () => {
  for (const errorStatus of ['real', 200] as const) {
    const t = await testApp({ errorStatus });
    const before = await snapshotOf(t.store, 'users');
    const r = await t.call('GET', '/api/v1/account', { key: null });
    assert.deepEqual([r.status, r.body], [401, { message: 'Unauthenticated.', status: 401 }]);
    const put = await t.call('PUT', '/api/v1/account', { body: { name: 'x' } });
    assert.equal(put.status, 405);
    assert.equal(await snapshotOf(t.store, 'users'), before);
  }
});
