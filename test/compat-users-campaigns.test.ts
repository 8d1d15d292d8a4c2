import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashApiKey } from '../src/auth/keys.ts';
import { ADMIN_KEY, snapshotOf, testApp } from './helpers.ts';

// Issue 16, item 9: the admin users list and user/add as the real product answers them; campaign
// `list` URLs at /u/<username>/<slug>-<id>, a page that exists.
const t = await testApp({ rateLimit: 10_000 });

test('POST /api/user/add answers {error, message, data: {id, email, username}}, the key beside them once', async () => {
  const r = await t.call('POST', '/api/user/add', { body: { username: 'ada', email: 'ada@example.com', password: 'secret-pw' } });
  assert.equal(r.status, 200, r.text);
  const { apikey, ...data } = r.body.data;
  assert.deepEqual({ ...r.body, data }, { error: 0, message: 'User has been registered.', data: { id: data.id, email: 'ada@example.com', username: 'ada' } });
  const stored = (await t.store.get('users', data.id))!;
  assert.deepEqual([stored.username, stored.status, stored.planid, stored.keyHash], ['ada', 'free', null, hashApiKey(apikey)]);
  const one = await t.call('GET', `/api/user/${data.id}`);
  assert.ok(!one.text.includes(apikey), 'never shown again');
});

test('GET /api/users: data is a plain array of users (one page of them, newest first), without secrets', async () => {
  for (const n of [1, 2, 3]) await t.makeUser(`list${n}`);
  const all = await t.call('GET', '/api/users', { key: ADMIN_KEY });
  assert.equal(all.status, 200, all.text);
  assert.equal(all.body.error, '0');
  assert.ok(Array.isArray(all.body.data));
  assert.deepEqual(all.body.data.map((u: { username: string }) => u.username), ['user_list3', 'user_list2', 'user_list1', 'ada', 'admin'], 'newest first');
  assert.deepEqual(Object.keys(all.body.data[0]).sort(), ['admin', 'avatar', 'disabled', 'email', 'expires', 'id', 'planid', 'registered', 'status', 'username']);
  assert.doesNotMatch(all.text, /keyHash|scrypt|sk_/);
  const page = await t.call('GET', '/api/users?limit=2&page=2');
  assert.deepEqual(page.body.data.map((u: { username: string }) => u.username), ['user_list1', 'ada']);
  assert.deepEqual((await t.call('GET', '/api/users?limit=2&page=9')).body, { error: '0', data: [] });
  assert.deepEqual((await t.call('GET', '/api/users?email=ADA@example.com')).body.data.map((u: { id: number }) => u.id), [2]);
});

test("a campaign's list URL is <base>/u/<username>/<slug>-<id>, and that page lists its public links, escaped", async () => {
  const owner = await t.makeUser('camp');
  const key = { key: owner.key };
  const campaign = (await t.call('POST', '/api/campaign/add', { ...key, body: { name: 'Spring <b>sale</b>', slug: 'spring', public: true } })).body;
  assert.equal(campaign.list, `http://sho.rt/u/user_camp/spring-${campaign.id}`);
  const list = (await t.call('GET', '/api/campaigns', key)).body.data.campaigns;
  assert.deepEqual(list.map((c: { list: string }) => c.list), [campaign.list], 'the list entries carry it too');
  const links = [
    { url: 'https://example.com/shown', metatitle: 'Shown <i>title</i>', status: 'public' },
    { url: 'https://example.com/private-one', status: 'private' },
    { url: 'https://example.com/locked-one', status: 'public', password: 'pw' },
  ];
  for (const body of links) {
    const link = (await t.call('POST', '/api/url/add', { ...key, body })).body;
    assert.equal((await t.call('POST', `/api/campaign/${campaign.id}/assign/${link.id}`, key)).status, 200);
  }

  const page = await t.call('GET', new URL(campaign.list).pathname, { key: null });
  assert.equal(page.status, 200, page.text);
  assert.match(page.headers.get('content-type')!, /text\/html/);
  assert.equal(page.headers.get('cache-control'), 'no-store');
  assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
  assert.match(page.text, /<h1>Spring &lt;b&gt;sale&lt;\/b&gt;<\/h1>/);
  assert.match(page.text, /Shown &lt;i&gt;title&lt;\/i&gt;/);
  assert.doesNotMatch(page.text, /<b>sale|<i>title/);
  assert.doesNotMatch(page.text, /private-one|locked-one/, 'private and protected links stay hidden');

  const old = await t.call('GET', `/c/${campaign.id}-spring`, { key: null });
  assert.deepEqual([old.status, old.headers.get('location')], [302, `/u/user_camp/spring-${campaign.id}`]);

  const hidden = (await t.call('POST', '/api/campaign/add', { ...key, body: { name: 'Hidden', public: false } })).body;
  assert.equal(hidden.list, `http://sho.rt/u/user_camp/hidden-${hidden.id}`);
  const before = await snapshotOf(t.store, 'campaigns');
  const own = await t.call('GET', new URL(hidden.list).pathname, { key: null });
  assert.equal(own.status, 403, 'its own list URL says the campaign is private');
  assert.match(own.text, /This campaign is private/);
  assert.doesNotMatch(own.text, /Hidden|Spring/);
  for (const path of [`/u/admin/spring-${campaign.id}`, `/u/ada/spring-${campaign.id}`, '/u/user_camp/spring-999', `/c/${hidden.id}`]) {
    const r = await t.call('GET', path, { key: null });
    assert.equal(r.status, 404, path);
    assert.match(r.text, /not found/i);
    assert.doesNotMatch(r.text, /Hidden|Spring/);
  }
  assert.equal(await snapshotOf(t.store, 'campaigns'), before);
});
