import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

test('short links', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  const add = (body: unknown, key = alice.key) => call('POST', '/api/url/add', { key, body });

  await t.test('create answers id and shorturl on BASE_URL with a generated URL-safe alias', async () => {
    const r = await add({ url: 'https://example.com/a' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.error, 0);
    const stored = (await store.get('links', r.body.id))!;
    assert.match(String(stored.alias), /^[A-Za-z0-9]{6}$/);
    assert.equal(r.body.shorturl, `http://sho.rt/${stored.alias}`);
    assert.equal(stored.url, 'https://example.com/a');
  });

  await t.test('an identical link without custom alias is returned instead of a duplicate', async () => {
    const first = await add({ url: 'https://example.com/dup' });
    const before = (await store.count('links'));
    const again = await add({ url: 'https://example.com/dup' });
    assert.deepEqual(again.body, first.body);
    assert.equal((await store.count('links')), before);
    const otherUser = await add({ url: 'https://example.com/dup' }, bob.key);
    assert.notEqual(otherUser.body.id, first.body.id);
    const framed = await add({ url: 'https://example.com/dup', type: 'frame' });
    assert.notEqual(framed.body.id, first.body.id, 'another type is another link');
    const locked = await add({ url: 'https://example.com/dup', password: 'pw-one' });
    assert.notEqual(locked.body.id, first.body.id, 'a password makes another link');
    assert.equal((await add({ url: 'https://example.com/dup', password: 'pw-one' })).body.id, locked.body.id);
    assert.notEqual((await add({ url: 'https://example.com/dup', password: 'pw-two' })).body.id, locked.body.id);
  });

  const rejected: { name: string; body: unknown; message: string | RegExp }[] = [
    { name: 'missing url', body: { custom: 'abc' }, message: 'Missing required parameter: url' },
    { name: 'not a URL', body: { url: 'notaurl' }, message: 'Please enter a valid URL: it must start with http:// or https://.' },
    { name: 'ftp URL', body: { url: 'ftp://example.com/x' }, message: 'Please enter a valid URL: it must start with http:// or https://.' },
    { name: 'a URL without a host', body: { url: 'https://' }, message: 'Please enter a valid URL.' },
    { name: 'alias too short', body: { url: 'https://e.com', custom: 'ab' }, message: 'Custom alias must be at least 3 characters.' },
    { name: 'alias with a slash', body: { url: 'https://e.com', custom: 'a/b/c' }, message: /letters, digits/ },
    { name: 'reserved alias', body: { url: 'https://e.com', custom: 'api' }, message: 'That alias is reserved. Please choose another one.' },
    { name: 'reserved alias, other case', body: { url: 'https://e.com', custom: 'Health' }, message: 'That alias is reserved. Please choose another one.' },
    { name: 'reserved alias: the readiness check', body: { url: 'https://e.com', custom: 'Ready' }, message: 'That alias is reserved. Please choose another one.' },
    { name: 'expiry in the past', body: { url: 'https://e.com', expiry: '2020-01-01 00:00:00' }, message: 'The expiry date must be later than today.' },
    { name: 'expiry not a date', body: { url: 'https://e.com', expiry: '2030-02-30 00:00:00' }, message: /calendar dates/ },
    { name: 'unknown pixel', body: { url: 'https://e.com', pixels: [999] }, message: 'Invalid pixels: pixel 999 does not exist.' },
    { name: 'bad type', body: { url: 'https://e.com', type: 'iframe' }, message: /Invalid type/ },
    { name: 'bad geotarget', body: { url: 'https://e.com', geotarget: [{ location: 'Narnia', link: 'https://n.com' }] }, message: /two-letter/ },
    { name: 'unknown device', body: { url: 'https://e.com', devicetarget: [{ device: 'toaster', link: 'https://n.com' }] }, message: /device/ },
    { name: 'foreign domain', body: { url: 'https://e.com', domain: 'https://not-mine.com' }, message: /not one of your branded domains/ },
    { name: 'bad status', body: { url: 'https://e.com', status: 'secret' }, message: 'Invalid status: must be public or private.' },
    { name: 'unknown channel', body: { url: 'https://e.com', channel: 4242 }, message: 'Invalid channel: channel 4242 does not exist.' },
    { name: 'unknown splash page', body: { url: 'https://e.com', type: '4242' }, message: 'Invalid type: splash 4242 does not exist.' },
    { name: 'unknown overlay', body: { url: 'https://e.com', type: 'overlay-4242' }, message: 'Invalid type: overlay 4242 does not exist.' },
  ];
  for (const c of rejected) {
    await t.test(`rejects ${c.name} with a 400 and stores nothing`, async () => {
      const before = await snapshotOf(store, 'links');
      const r = await add(c.body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error, 1);
      if (typeof c.message === 'string') assert.equal(r.body.message, c.message);
      else assert.match(r.body.message, c.message);
      assert.equal(await snapshotOf(store, 'links'), before);
    });
  }

  await t.test('a custom alias is unique; the second use is refused', async () => {
    assert.equal((await add({ url: 'https://e.com/1', custom: 'promo' })).status, 200);
    const before = await snapshotOf(store, 'links');
    const r = await add({ url: 'https://e.com/2', custom: 'promo' }, bob.key);
    assert.deepEqual([r.status, r.body], [400, { error: 1, message: 'That alias is taken. Please choose another one.' }]);
    assert.equal(await snapshotOf(store, 'links'), before);
  });

  await t.test('the password is stored hashed and never returned', async () => {
    const r = await add({ url: 'https://e.com/secret', password: 'hunter22' });
    const stored = (await store.get('links', r.body.id))!;
    assert.match(String(stored.password), /^scrypt\$/);
    const got = await call('GET', `/api/url/${r.body.id}`, { key: alice.key });
    assert.equal(got.body.details.password, true);
    assert.ok(!got.text.includes('hunter22'));
    assert.ok(!got.text.includes(String(stored.password)));
  });

  await t.test('single link: details and statistics in the shape of the compat notes', async () => {
    const r = await add({ url: 'https://e.com/single', custom: 'single', metatitle: 'Single', metadescription: 'md', description: 'd', status: 'public' });
    const got = await call('GET', `/api/url/${r.body.id}`, { key: alice.key });
    assert.equal(got.status, 200);
    assert.equal(got.body.error, 0);
    assert.equal(got.body.id, r.body.id);
    assert.deepEqual(
      { ...got.body.details, date: 'x' },
      { id: r.body.id, alias: 'single', shorturl: 'http://sho.rt/single', longurl: 'https://e.com/single', title: 'Single', description: 'md', location: {}, device: {}, language: {}, expiry: null, password: false, type: 'direct', pixels: [], campaign: null, channel: [], status: 'public', date: 'x' },
    );
    // The real product's fields, then ours (only added: a client of the product reads what it knows).
    assert.deepEqual(Object.keys(got.body.data), ['clicks', 'uniqueClicks', 'topCountries', 'topReferrers', 'topBrowsers', 'topOs', 'socialCount', 'topSources', 'topRegions', 'topCities', 'utm']);
    assert.deepEqual(got.body.data.utm, { source: {}, medium: {}, campaign: {}, term: {}, content: {} });
  });

  await t.test('short= returns that one link; another user\'s short URL is a 403, an unknown one a 404', async () => {
    const got = await call('GET', `/api/urls?short=${encodeURIComponent('http://sho.rt/single')}`, { key: alice.key });
    assert.equal(got.status, 200);
    assert.equal(got.body.details.alias, 'single');
    const theirs = await call('GET', `/api/urls?short=${encodeURIComponent('http://sho.rt/single')}`, { key: bob.key });
    assert.deepEqual([theirs.status, theirs.body], [403, { error: 1, message: 'You do not have the permission to access this short url.' }]);
    const unknown = await call('GET', `/api/urls?short=${encodeURIComponent('http://sho.rt/nothing-here')}`, { key: bob.key });
    assert.deepEqual([unknown.status, unknown.body], [404, { error: 1, message: 'Invalid short url. Please try again.' }]);
  });

  await t.test('q searches url, alias and title; order is click, or else date', async () => {
    const r = await call('GET', '/api/urls?q=SINGLE', { key: alice.key });
    assert.deepEqual(r.body.data.urls.map((u: { alias: string }) => u.alias), ['single']);
    const entry = r.body.data.urls[0];
    assert.deepEqual(Object.keys(entry).sort(), ['alias', 'campaign', 'channel', 'clicks', 'date', 'description', 'domain', 'id', 'longurl', 'shorturl', 'title', 'uniqueclicks']);
    assert.equal((await call('GET', '/api/urls?order=click', { key: alice.key })).status, 200);
    const bySize = await call('GET', '/api/urls?order=size', { key: alice.key });
    assert.equal(bySize.status, 200, 'anything but click means date, as the real product reads it');
    assert.deepEqual(bySize.body.data.urls, (await call('GET', '/api/urls?order=date', { key: alice.key })).body.data.urls);
  });

  await t.test('update keeps the url and alias when omitted and may change the alias', async () => {
    const r = await add({ url: 'https://e.com/upd', custom: 'before' });
    const u = await call('PUT', `/api/url/${r.body.id}/update`, { key: alice.key, body: { custom: 'after' } });
    assert.deepEqual(u.body, { error: 0, id: r.body.id, shorturl: 'http://sho.rt/after' });
    const stored = (await store.get('links', r.body.id))!;
    assert.equal(stored.url, 'https://e.com/upd');
    assert.equal(stored.alias, 'after');
    const clash = await call('PUT', `/api/url/${r.body.id}/update`, { key: alice.key, body: { custom: 'promo' } });
    assert.equal(clash.status, 400);
    assert.equal((await store.get('links', r.body.id))!.alias, 'after');
  });

  await t.test("another user's pixel cannot be attached; deleting a pixel detaches it from links", async () => {
    const bobPixel = await call('POST', '/api/pixel/add', { key: bob.key, body: { type: 'gapixel', name: 'b', tag: 'G-B' } });
    const refused = await add({ url: 'https://e.com/px', pixels: [bobPixel.body.id] });
    assert.equal(refused.status, 400);
    const pixel = await call('POST', '/api/pixel/add', { key: alice.key, body: { type: 'gapixel', name: 'a', tag: 'G-A' } });
    const link = await add({ url: 'https://e.com/px', pixels: [pixel.body.id] });
    assert.deepEqual((await store.get('links', link.body.id))!.pixels, [pixel.body.id]);
    await call('DELETE', `/api/pixel/${pixel.body.id}/delete`, { key: alice.key });
    assert.deepEqual((await store.get('links', link.body.id))!.pixels, []);
  });

  await t.test('deleting a branded domain moves its links to the main host; a clashing alias is renamed', async () => {
    const domain = await call('POST', '/api/domain/add', { key: alice.key, body: { domain: 'https://go.alice.test' } });
    assert.equal(domain.status, 200, domain.text);
    const onBrand = await add({ url: 'https://e.com/brand', custom: 'promo', domain: 'https://go.alice.test:443' });
    assert.equal(onBrand.body.shorturl, 'https://go.alice.test/promo', 'the default port is the same origin');
    const free = await add({ url: 'https://e.com/brand2', custom: 'brand-only', domain: 'https://go.alice.test' });
    await call('DELETE', `/api/domain/${domain.body.id}/delete`, { key: alice.key });
    const moved = (await store.get('links', free.body.id))!;
    assert.deepEqual([moved.domainId, moved.alias], [null, 'brand-only']);
    const renamed = (await store.get('links', onBrand.body.id))!;
    assert.equal(renamed.domainId, null);
    assert.notEqual(renamed.alias, 'promo', 'promo is taken on the main host');
    assert.match(String(renamed.alias), /^[A-Za-z0-9]{6}$/);
  });
});

test('a counted redirect of a link at hand is answered in one synchronous step, no promise on the way, and counted', async () => {
  const { app, call, makeUser, counters } = await testApp();
  const owner = await makeUser('hotpath');
  const made = await call('POST', '/api/url/add', { key: owner.key, body: { url: 'https://example.com/hot', custom: 'hotpath' } });
  assert.equal(made.status, 200, made.text);
  // The first visit may have to fetch the link and its owner's state (PostgreSQL: into the process's cache).
  const first = await app.fetch(new Request('http://sho.rt/hotpath', { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } }));
  assert.equal(first.status, 302);
  // The next one is answered before fetch returns: every route carries the store's deadline itself, so no
  // handler in front of it makes the answer asynchronous (a promise per redirect costs measurably at this rate).
  const second = app.fetch(new Request('http://sho.rt/hotpath', { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } }));
  assert.ok(second instanceof Response, 'a Response, not a promise of one');
  assert.equal(second.status, 302);
  assert.equal(second.headers.get('location'), 'https://example.com/hot');
  await counters.flush();
  const stats = await call('GET', `/api/url/${made.body.id}`, { key: owner.key });
  assert.equal(stats.body.data.clicks, 2);
});
