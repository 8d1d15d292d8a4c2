import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Link } from '../src/links/shape.ts';
import { ownedBy, snapshotOf, testApp } from './helpers.ts';

// Issue 16, items 4 and 5: branded domains matched as the real product's clients write them, and
// link responses and updates as the real product answers them (docs/compatibility.md).
test('links as clients of the real product expect them', async (t) => {
  const app = await testApp({ rateLimit: 0 });
  const { call, store } = app;
  const alice = await app.makeUser('alice');
  const bob = await app.makeUser('bob');
  const add = (body: unknown, key = alice.key) => call('POST', '/api/url/add', { key, body });
  const stored = async (id: number) => (await store.get<Link>('links', id))!;
  const brand = await call('POST', '/api/domain/add', { key: alice.key, body: { domain: 'https://go.example.com' } });
  assert.equal(brand.status, 200, brand.text);
  assert.equal((await call('POST', '/api/domain/add', { key: bob.key, body: { domain: 'https://bob.example.net' } })).status, 200);

  await t.test('a link names its branded domain whatever the scheme, letter case or trailing slash, or as a bare host', async () => {
    const spellings = ['https://go.example.com', 'http://go.example.com', 'HTTPS://GO.Example.COM/', 'go.example.com', 'Go.Example.Com/', 'go.example.com.', 'https://go.example.com:443/'];
    for (const [i, domain] of spellings.entries()) {
      const r = await add({ url: `https://example.com/${i}`, custom: `brand-${i}`, domain });
      assert.deepEqual([r.status, r.body.shorturl], [200, `https://go.example.com/brand-${i}`], domain);
      assert.equal((await stored(r.body.id)).domainId, brand.body.id, domain);
    }
    const main = await add({ url: 'https://example.com/main', custom: 'on-main', domain: 'SHO.RT' });
    assert.deepEqual([main.status, main.body.shorturl], [200, 'http://sho.rt/on-main'], "the server's own host by any spelling is the main host");
  });

  await t.test("a domain that is not the user's is refused, and nothing is stored", async () => {
    const before = await snapshotOf(store, 'links');
    for (const domain of ['bob.example.net', 'https://bob.example.net', 'other.example.org', 'https://go.example.com/path', 'go example com']) {
      const r = await add({ url: 'https://example.com/x', domain });
      assert.deepEqual([r.status, r.body], [400, { error: 1, message: 'Invalid domain: it is not one of your branded domains.' }], domain);
    }
    assert.equal(await snapshotOf(store, 'links'), before);
  });

  await t.test('short= finds a link by any spelling of its host; an unknown, malformed or foreign short URL gets the real messages', async () => {
    for (const short of ['https://go.example.com/brand-0', 'http://GO.EXAMPLE.COM/brand-0', 'https://sho.rt/on-main']) {
      const r = await call('GET', `/api/urls?short=${encodeURIComponent(short)}`, { key: alice.key });
      assert.equal(r.status, 200, short);
      assert.equal(r.body.details.shorturl, short.toLowerCase().includes('sho.rt') ? 'http://sho.rt/on-main' : 'https://go.example.com/brand-0');
    }
    const invalid = { error: 1, message: 'Invalid short url. Please try again.' };
    for (const [short, status] of [['https://go.example.com/nothing', 404], ['https://unknown.example.org/brand-0', 404], ['not a url', 400], ['https://sho.rt/', 400]] as const) {
      const r = await call('GET', `/api/urls?short=${encodeURIComponent(short)}`, { key: alice.key });
      assert.deepEqual([r.status, r.body], [status, invalid], short);
    }
    const foreign = await call('GET', `/api/urls?short=${encodeURIComponent('https://go.example.com/brand-0')}`, { key: bob.key });
    assert.deepEqual([foreign.status, foreign.body], [403, { error: 1, message: 'You do not have the permission to access this short url.' }]);
  });

  await t.test('a new link is private unless public; description is the meta description; targets are maps', async () => {
    const r = await add({
      url: 'https://example.com/targets',
      metatitle: 'Meta title',
      metadescription: 'Meta description',
      description: 'A note of the owner',
      geotarget: [{ location: 'Canada', link: 'https://example.ca/' }, { location: 'us', link: 'https://example.com/us' }, { location: 'CA', link: 'https://example.ca/second' }],
      devicetarget: [{ device: 'iPhone', link: 'https://example.com/ios' }, { device: 'Windows Phone', link: 'https://example.com/wp' }],
      languagetarget: [{ language: 'fr', link: 'https://example.com/fr' }],
    });
    assert.equal(r.status, 200, r.text);
    const got = await call('GET', `/api/url/${r.body.id}`, { key: alice.key });
    const d = got.body.details;
    assert.deepEqual([d.status, d.title, d.description], ['private', 'Meta title', 'Meta description']);
    assert.deepEqual(d.location, { canada: 'https://example.ca/', 'united states': 'https://example.com/us' }, 'by country name; the first rule of a country is the one followed');
    assert.deepEqual(d.device, { iphone: 'https://example.com/ios', 'windows phone': 'https://example.com/wp' });
    assert.deepEqual(d.language, { fr: 'https://example.com/fr' });
    assert.equal((await stored(r.body.id)).status, 'private');
    const listed = (await call('GET', '/api/urls?q=targets', { key: alice.key })).body.data.urls[0];
    assert.equal(listed.description, 'Meta description');
    const pub = await add({ url: 'https://example.com/public', status: 'public' });
    assert.equal((await stored(pub.body.id)).status, 'public');
  });

  await t.test('top counts are integers; social referrers, short domains too, count in socialCount and not in topReferrers', async () => {
    const r = await add({ url: 'https://example.com/counted', custom: 'counted', status: 'public' });
    const referrers = ['https://m.facebook.com/story', 'https://fb.com/x', 'https://l.instagram.com/?u=1', 'https://t.co/abc', 'https://x.com/post', 'https://lnkd.in/xyz', 'https://www.linkedin.com/feed', 'https://news.example.org/a', 'https://news.example.org/b', ''];
    for (const [i, referer] of referrers.entries()) {
      const res = await app.app.request('/counted', { headers: { referer, 'user-agent': `Mozilla/5.0 (Windows NT 10.0) Chrome/120.0 Safari/537.36 n${i}`, 'cf-ipcountry': 'CA' } });
      assert.equal(res.status, 302);
    }
    const data = (await call('GET', `/api/url/${r.body.id}`, { key: alice.key })).body.data;
    assert.equal(data.clicks, 10);
    assert.deepEqual(data.socialCount, { facebook: 2, twitter: 2, instagram: 1, linkedin: 2 });
    assert.deepEqual(data.topReferrers, { 'news.example.org': 2, 'Direct, email and other': 1 });
    assert.deepEqual(data.topCountries, { Canada: 10 });
    for (const map of [data.topBrowsers, data.topOs]) for (const count of Object.values(map)) assert.equal(typeof count, 'number');
  });

  await t.test('update resets the optional fields it leaves out; url, alias, type, status, meta and campaign stay', async () => {
    const pixel = await call('POST', '/api/pixel/add', { key: alice.key, body: { type: 'gapixel', name: 'p', tag: 'G-1' } });
    const campaign = await call('POST', '/api/campaign/add', { key: alice.key, body: { name: 'Spring' } });
    const full = await add({
      url: 'https://example.com/full',
      custom: 'full-link',
      domain: 'go.example.com',
      password: 'secret-1',
      expiry: '2030-01-01 00:00:00',
      type: 'frame',
      status: 'public',
      metatitle: 'T',
      metadescription: 'D',
      description: 'note',
      geotarget: [{ location: 'CA', link: 'https://example.ca/' }],
      devicetarget: [{ device: 'android', link: 'https://example.com/a' }],
      languagetarget: [{ language: 'de', link: 'https://example.com/de' }],
      parameters: [{ name: 'utm_source', value: 'x' }],
      deeplink: { apple: 'https://apps.apple.com/app/1' },
      pixels: [pixel.body.id],
      campaign: campaign.body.id,
    });
    assert.equal(full.status, 200, full.text);
    const u = await call('PUT', `/api/url/${full.body.id}/update`, { key: alice.key, body: { url: 'https://example.com/new', domain: false } });
    assert.deepEqual(u.body, { error: 0, id: full.body.id, shorturl: 'http://sho.rt/full-link' });
    const after = await stored(full.body.id);
    assert.deepEqual(
      { url: after.url, alias: after.alias, type: after.type, status: after.status, metatitle: after.metatitle, metadescription: after.metadescription, campaign: after.campaign },
      { url: 'https://example.com/new', alias: 'full-link', type: 'frame', status: 'public', metatitle: 'T', metadescription: 'D', campaign: campaign.body.id },
    );
    assert.deepEqual(
      { domainId: after.domainId, password: after.password, pixels: after.pixels },
      { domainId: null, password: null, pixels: [] },
    );
    for (const gone of ['expiry', 'geotarget', 'devicetarget', 'languagetarget', 'parameters', 'deeplink', 'description'] as const) assert.equal(after[gone], undefined, gone);
    const got = (await call('GET', `/api/url/${full.body.id}`, { key: alice.key })).body.details;
    assert.deepEqual([got.location, got.device, got.expiry, got.password], [{}, {}, null, false]);
  });

  await t.test('an update that moves a link to the main host still checks its alias there; a refused update changes nothing', async () => {
    const branded = await add({ url: 'https://example.com/b', custom: 'on-main', domain: 'go.example.com', description: 'kept' });
    assert.equal(branded.status, 200, branded.text);
    const before = await snapshotOf(store, 'links');
    const clash = await call('PUT', `/api/url/${branded.body.id}/update`, { key: alice.key, body: { description: 'changed' } });
    assert.deepEqual([clash.status, clash.body], [400, { error: 1, message: 'That alias is taken. Please choose another one.' }]);
    assert.equal(await snapshotOf(store, 'links'), before);
    const kept = await call('PUT', `/api/url/${branded.body.id}/update`, { key: alice.key, body: { domain: 'GO.EXAMPLE.COM' } });
    assert.deepEqual([kept.status, kept.body.shorturl], [200, 'https://go.example.com/on-main']);
    assert.equal((await ownedBy(store, 'links', bob.id)).length, 0);
  });
});

// Issue 24: a URL a client stores comes back exactly as it was sent (test/url-fields.test.ts has every field).
test('every URL comes back from the API as it was sent', async () => {
  const { call } = await testApp();
  const link = await call('POST', '/api/url/add', { body: { url: 'https://example.com', custom: 'as-sent' } });
  assert.equal((await call('GET', `/api/url/${link.body.id}`)).body.details.longurl, 'https://example.com');
  assert.equal((await call('GET', '/api/urls')).body.data.urls[0].longurl, 'https://example.com');
  const domain = await call('POST', '/api/domain/add', { body: { domain: 'https://go.example.org', redirectroot: 'https://example.org', redirect404: 'HTTPS://Example.org/Missing' } });
  assert.deepEqual(
    (await call('GET', '/api/domains')).body.data.domains.map((d: Record<string, unknown>) => [d.id, d.redirectroot, d.redirect404]),
    [[domain.body.id, 'https://example.org', 'HTTPS://Example.org/Missing']],
  );
});

test("redirects: a URL stored as sent goes out as it is, or in the URL parser's form where a header cannot carry it; older normalised data redirects as before", async () => {
  const { call, store } = await testApp();
  const go = async (alias: string) => (await call('GET', `/${alias}`, { key: null })).headers.get('location');
  await call('POST', '/api/url/add', { body: { url: 'https://example.com', custom: 'bare' } });
  await call('POST', '/api/url/add', { body: { url: 'https://bücher.example/straße?q=a b', custom: 'idn' } });
  await call('POST', '/api/url/add', { body: { url: 'https://example.com', custom: 'params', parameters: [{ name: 'utm_source', value: 'x y' }] } });
  assert.equal(await go('bare'), 'https://example.com');
  assert.equal(await go('idn'), 'https://xn--bcher-kva.example/stra%C3%9Fe?q=a%20b');
  assert.equal(await go('params'), 'https://example.com/?utm_source=x+y');
  // As an older version stored it: the URL parser's form.
  const old = await call('POST', '/api/url/add', { body: { url: 'https://example.com/old', custom: 'old' } });
  await store.transaction((tx) => tx.update('links', old.body.id, { url: 'https://example.com/%C3%BC' }));
  assert.equal(await go('old'), 'https://example.com/%C3%BC');
});
