import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_KEY, ownedBy, snapshotOf, testApp } from './helpers.ts';

// Issue 16, item 1: the vendor's PHP wrapper sends `Authorization: Token <key>`; it must work as Bearer does.
test('Authorization: Token <key> is accepted like Bearer on both APIs', async () => {
  const t = await testApp();
  const user = await t.makeUser('tok');
  const token = { key: null, headers: { authorization: `Token ${user.key}` } };

  const created = await t.call('POST', '/api/url/add', { ...token, body: { url: 'https://example.com/token' } });
  assert.equal(created.status, 200, created.text);
  assert.equal(created.body.error, 0);
  const stored = await ownedBy(t.store, 'links', user.id);
  assert.deepEqual(stored.map((l) => l.url), ['https://example.com/token']);

  const list = await t.call('GET', '/api/urls', token);
  assert.equal(list.status, 200);
  assert.equal(list.body.data.urls.length, 1);

  const account = await t.call('GET', '/api/account', token);
  assert.equal(account.status, 200);
  assert.equal(account.body.data.email, 'user_tok@example.com');

  const sites = await t.call('GET', '/api/v1/websites', token);
  assert.equal(sites.status, 200);
  assert.deepEqual(sites.body.data, []);
});

test('a wrong key under Token is refused and stores nothing', async () => {
  const t = await testApp();
  const before = await snapshotOf(t.store, 'links');
  for (const authorization of [`Token sk_wrong_key_00000000000000000`, `Token`, `Tokens ${ADMIN_KEY}`]) {
    const r = await t.call('POST', '/api/url/add', { key: null, headers: { authorization }, body: { url: 'https://example.com/x' } });
    assert.equal(r.status, 401, authorization);
    assert.deepEqual(r.body, { error: 1, message: 'A valid API key is required to use this service.' });
  }
  assert.equal(await snapshotOf(t.store, 'links'), before);
});
