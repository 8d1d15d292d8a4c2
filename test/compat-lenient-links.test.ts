import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ownedBy, snapshotOf, testApp } from './helpers.ts';

// Issue 16, item 3: the link API reads its inputs as leniently as the real product does, but a
// wrong value that would be stored wrong is still refused (and nothing is stored).
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

async function setup() {
  const t = await testApp();
  const alice = await t.makeUser('alice');
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { key: alice.key, body });
  return { ...t, alice, call, links: () => ownedBy(t.store, 'links', alice.id) };
}

test('list order: click orders by clicks, anything else by date', async () => {
  const t = await setup();
  for (const n of [1, 2, 3]) assert.equal((await t.call('POST', '/api/url/add', { url: `https://example.com/${n}` })).status, 200);
  const ids = (r: { body: any }) => r.body.data.urls.map((u: { id: number }) => u.id);
  const byDate = await t.call('GET', '/api/urls?order=date');
  for (const order of ['size', '', 'DATE', 'clicks']) {
    const r = await t.call('GET', `/api/urls?order=${order}`);
    assert.equal(r.status, 200, order);
    assert.deepEqual(ids(r), ids(byDate), order);
  }
  assert.equal((await t.call('GET', '/api/urls?order=click')).status, 200);
});

test('limit and page: missing or non-numeric values are the defaults, limit is capped at 1,000', async () => {
  const t = await setup();
  for (const n of [1, 2, 3]) await t.call('POST', '/api/url/add', { url: `https://example.com/${n}` });
  const cases: [query: string, perpage: number, page: number, count: number][] = [
    ['', 15, 1, 3],
    ['?limit=abc&page=xyz', 15, 1, 3],
    ['?limit=2&page=two', 2, 1, 2],
    ['?limit=-5&page=2', 15, 2, 0],
    ['?limit=2.5&page=2', 15, 2, 0],
    ['?limit=1&page=3', 1, 3, 1],
    // Clients of the real product ask for 500 and 1,000 at a time.
    ['?limit=500', 500, 1, 3],
    ['?limit=1000', 1000, 1, 3],
    ['?limit=1001', 1000, 1, 3],
    ['?limit=99999', 1000, 1, 3],
  ];
  for (const [query, perpage, page, count] of cases) {
    const r = await t.call('GET', `/api/urls${query}`);
    assert.equal(r.status, 200, query);
    assert.deepEqual([r.body.data.perpage, r.body.data.currentpage, r.body.data.urls.length], [perpage, page, count], query);
  }
});

test('a client asking for 500 at a time gets every link of a list longer than the old cap of 100', async () => {
  const t = await setup();
  await t.store.transaction(async (tx) => {
    for (let n = 1; n <= 130; n++) await tx.insert('links', { userId: t.alice.id, alias: `many-${n}`, url: `https://example.com/${n}`, type: 'direct', pixels: [], date: '2026-11-21 10:00:00' });
  });
  const r = await t.call('GET', '/api/urls?limit=500&page=1');
  assert.deepEqual([r.status, r.body.data.result, r.body.data.perpage, r.body.data.nextpage, r.body.data.urls.length], [200, 130, 500, null, 130]);
  assert.deepEqual([r.body.data.urls[0].alias, r.body.data.urls.at(-1).alias], ['many-130', 'many-1'], 'newest first');
});

test('empty means absent: false, "" and null on optional fields are ignored on create and update', async () => {
  const t = await setup();
  const empty = { domain: false, custom: '', password: null, expiry: '', pixels: false, channel: null, campaign: false, metatitle: null, geotarget: false, parameters: null, deeplink: '' };
  const r = await t.call('POST', '/api/url/add', { url: 'https://example.com/php', ...empty });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.error, 0);
  const [stored] = await t.links();
  assert.ok(stored);
  assert.equal(stored.url, 'https://example.com/php');
  assert.equal(stored.domainId, null);
  assert.equal(stored.password, null);
  assert.deepEqual([stored.pixels, stored.channels, stored.campaign], [[], [], null]);
  assert.equal(stored.expiry, undefined);
  assert.match(String(stored.alias), /^[A-Za-z0-9]{3,}$/, 'a generated alias, not an empty one');

  const updated = await t.call('PUT', `/api/url/${stored.id}/update`, { url: 'https://example.com/php2', custom: '', domain: false, expiry: null });
  assert.equal(updated.status, 200, updated.text);
  const [after] = await t.links();
  assert.deepEqual([after?.url, after?.alias, after?.domainId], ['https://example.com/php2', stored.alias, null]);
});

test('values the field takes are kept: public false on a campaign, status and description as given', async () => {
  const t = await setup();
  const campaign = await t.call('POST', '/api/campaign/add', { name: 'Spring', public: false });
  assert.equal(campaign.status, 200, campaign.text);
  const [stored] = await ownedBy(t.store, 'campaigns', t.alice.id);
  assert.equal(stored?.public, false);
});

test('a wrong type is still refused where it would be stored wrong, and nothing is stored', async () => {
  const t = await setup();
  const before = await snapshotOf(t.store, 'links');
  const bodies: [name: string, body: unknown, message: RegExp][] = [
    ['required url false', { url: false }, /url/],
    ['required url empty', { url: '' }, /valid URL/],
    ['required url null', { url: null }, /url/],
    ['pixels not a list', { url: 'https://e.com', pixels: 'abc' }, /pixels/],
    ['custom a number', { url: 'https://e.com', custom: 5 }, /custom/],
    ['parameters not a list', { url: 'https://e.com', parameters: 'utm_source=x' }, /parameters/],
    ['unknown country', { url: 'https://e.com', geotarget: [{ location: 'Narnia', link: 'https://n.com' }] }, /country/],
    ['unknown device', { url: 'https://e.com', devicetarget: [{ device: 'Toaster', link: 'https://n.com' }] }, /device/],
    ['channel true', { url: 'https://e.com', channel: true }, /channel/],
  ];
  for (const [name, body, message] of bodies) {
    const r = await t.call('POST', '/api/url/add', body);
    assert.equal(r.status, 400, `${name}: ${r.text}`);
    assert.equal(r.body.error, 1, name);
    assert.match(r.body.message, message, name);
  }
  assert.equal(await snapshotOf(t.store, 'links'), before);
});

test('malformed parameters entries are skipped, the good ones kept', async () => {
  const t = await setup();
  const parameters = [{ name: 'utm_source', value: 'news' }, 'junk', null, { name: 5, value: 'x' }, { value: 'no name' }, { name: '', value: 'x' }, { name: ' ref ', value: 'ad' }];
  const r = await t.call('POST', '/api/url/add', { url: 'https://example.com/p', parameters });
  assert.equal(r.status, 200, r.text);
  const [stored] = await t.links();
  assert.deepEqual(stored?.parameters, [{ name: 'utm_source', value: 'news' }, { name: 'ref', value: 'ad' }]);
});

test('geotarget takes country names and codes; devicetarget takes the real product\'s device names; visitors are sent there', async () => {
  const t = await setup();
  const body = {
    url: 'https://example.com/default',
    custom: 'targeted',
    geotarget: [{ location: 'Canada', link: 'https://example.ca/' }, { location: 'United States', link: 'https://example.us/' }, { location: 'de', link: 'https://example.de/' }],
    devicetarget: [{ device: 'iPhone', link: 'https://example.com/iphone' }, { device: 'Android', link: 'https://example.com/android' }, { device: 'Mac', link: 'https://example.com/mac' }],
  };
  const r = await t.call('POST', '/api/url/add', body);
  assert.equal(r.status, 200, r.text);
  const [stored] = await t.links();
  assert.deepEqual((stored?.geotarget as { location: string }[]).map((g) => g.location), ['CA', 'US', 'de']);
  assert.deepEqual((stored?.devicetarget as { device: string }[]).map((d) => d.device), ['iphone', 'android', 'macintosh']);
  const visit = (headers: Record<string, string>) => t.app.request('/targeted', { headers });
  assert.equal((await visit({ 'cf-ipcountry': 'CA' })).headers.get('location'), 'https://example.ca/');
  assert.equal((await visit({ 'cf-ipcountry': 'US' })).headers.get('location'), 'https://example.us/');
  assert.equal((await visit({ 'user-agent': IPHONE })).headers.get('location'), 'https://example.com/iphone');
});
