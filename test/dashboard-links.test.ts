import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Config } from '../src/config.ts';
import type { Link } from '../src/links/shape.ts';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';
import { COUNT_AHEAD, LinkTable, listParams, listStoreQuery } from '../src/dashboard/links/list.tsx';

/** An app (with `overrides` to its config) with a signed-in user who has a campaign, a channel and a pixel. */
async function world(overrides: Partial<Config> = {}) {
  const t = await testApp({ rateLimit: 0, ...overrides });
  const u = await t.makeUser('links');
  const api = (method: string, path: string, body?: unknown) => t.call(method, path, { key: u.key, ...(body === undefined ? {} : { body }) });
  const campaign = (await api('POST', '/api/campaign/add', { name: 'Spring sale' })).body.id as number;
  const channel = (await api('POST', '/api/channel/add', { name: 'Newsletter' })).body.id as number;
  const pixel = (await api('POST', '/api/pixel/add', { type: 'gtmpixel', name: 'Tag manager', tag: 'GTM-ABC123' })).body.id as number;
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_links', 'secret-pw')).status, 303);
  await browser.get('/app/links/new');
  return { t, u, api, browser, campaign, channel, pixel };
}

const linksOf = async (t: Awaited<ReturnType<typeof testApp>>, owner: number) => (await t.store.find<Link>('links', { owner, sort: { field: 'id', direction: 'asc' } })).items;

test('a link made in the dashboard with every option is stored as the API stores it, audited, and its webhook event appended', async () => {
  const { t, u, browser, campaign, channel, pixel } = await world();
  const made = await browser.post('/app/links', {
    url: 'https://example.com/spring',
    custom: 'spring-sale',
    password: 'open-sesame',
    expiry: '2027-01-31T12:30',
    description: 'For the <b>newsletter</b>',
    metatitle: 'Spring',
    status: 'public',
    type: 'frame',
    campaign: String(campaign),
    channel: String(channel),
    pixels: [String(pixel)],
    geo_key: ['DE', ''],
    geo_link: ['https://example.de/', ''],
    device_key: ['iphone', ''],
    device_link: ['https://apps.example.com/ios', ''],
    language_key: ['fr', ''],
    language_link: ['https://example.com/fr', ''],
  });
  assert.equal(made.status, 303, made.text);
  const [link] = await linksOf(t, u.id);
  assert.ok(link);
  assert.equal(made.location, `/app/links/${link.id}?done=created`);
  assert.equal(link.alias, 'spring-sale');
  assert.equal(link.url, 'https://example.com/spring');
  assert.match(link.password!, /^scrypt\$/);
  assert.equal(link.expiry, '2027-01-31 12:30:00');
  assert.equal(link.type, 'frame');
  assert.equal(link.status, 'public');
  assert.equal(link.campaign, campaign);
  assert.deepEqual(link.channels, [channel]);
  assert.deepEqual(link.pixels, [pixel]);
  assert.deepEqual(link.geotarget, [{ location: 'DE', link: 'https://example.de/' }]);
  assert.deepEqual(link.devicetarget, [{ device: 'iphone', link: 'https://apps.example.com/ios' }]);
  assert.deepEqual(link.languagetarget, [{ language: 'fr', link: 'https://example.com/fr' }]);

  const page = await browser.get(made.location!);
  assert.equal(page.status, 200);
  assert.match(page.text, /http:\/\/sho\.rt\/spring-sale/);
  assert.match(page.text, /For the &lt;b&gt;newsletter&lt;\/b&gt;/, 'stored text is escaped');
  assert.match(page.text, /<svg[^>]*class="chart wide"/);
  assert.match(page.text, /Countries/);

  await t.audit.flush();
  const audit = (await t.store.find('audit', { owner: u.id })).items.filter((e) => String(e.route).startsWith('/app'));
  assert.deepEqual(audit.map((e) => [e.route, e.resource, e.resourceId, e.status]), [['/app/links', 'links', link.id, 200]]);
  const events = (await t.store.find('events', { owner: u.id })).items.filter((e) => e.type === 'link.created');
  assert.equal(events.length, 1);
  assert.equal((events[0]!.data as { id: number }).id, link.id);
});

test("the API's validation messages are shown beside their fields, the form keeps what was typed, and nothing is stored", async () => {
  const { t, u, browser } = await world();
  const cases: { name: string; form: Record<string, string> & { url: string }; field: string; message: RegExp }[] = [
    { name: 'a URL that is none', form: { url: 'not a url', custom: 'kept-alias' }, field: 'url', message: /valid URL/ },
    { name: 'a short alias', form: { url: 'https://example.com/a', custom: 'ab' }, field: 'custom', message: /at least 3 characters/ },
    { name: 'a reserved alias', form: { url: 'https://example.com/a', custom: 'app' }, field: 'custom', message: /reserved/ },
    { name: 'an expiry in the past', form: { url: 'https://example.com/a', expiry: '2020-01-01T00:00' }, field: 'expiry', message: /later than today/ },
    { name: 'a country that is none', form: { url: 'https://example.com/a', geo_key: 'Atlantis', geo_link: 'https://example.com/x' }, field: 'geo', message: /geotarget location/ },
    { name: 'a campaign of nobody', form: { url: 'https://example.com/a', campaign: '999' }, field: 'campaign', message: /does not exist/ },
  ];
  for (const c of cases) {
    const res = await browser.post('/app/links', c.form);
    assert.equal(res.status, 400, c.name);
    assert.match(res.text, new RegExp(`id="${c.field}-error">[^<]*`), c.name);
    assert.match(/id="[a-z]+-error">([^<]*)/.exec(res.text)![1]!, c.message, c.name);
    assert.match(res.text, new RegExp(`value="${c.form.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`), `${c.name}: the URL is kept`);
  }
  assert.equal((await linksOf(t, u.id)).length, 0);
  await t.audit.flush();
  const refused = (await t.store.find('audit', { owner: u.id })).items.filter((e) => String(e.route).startsWith('/app'));
  assert.equal(refused.length, cases.length);
  assert.ok(refused.every((e) => e.status === 400), 'refused writes are audited with their status');
});

test('edit keeps the stored password unless a new one is typed or its removal asked; delete removes the link', async () => {
  const { t, u, browser, api } = await world();
  const id = (await api('POST', '/api/url/add', { url: 'https://example.com/edit', custom: 'edit-me', password: 'first' })).body.id as number;
  const form = await browser.get(`/app/links/${id}/edit`);
  assert.equal(form.status, 200);
  assert.match(form.text, /value="edit-me"/);
  const hash = (await t.store.get<Link>('links', id))!.password;
  const saved = await browser.post(`/app/links/${id}/edit`, { url: 'https://example.com/edited', custom: 'edit-me', type: 'direct', status: 'private' });
  assert.equal(saved.status, 303, saved.text);
  let link = (await t.store.get<Link>('links', id))!;
  assert.equal(link.url, 'https://example.com/edited');
  assert.equal(link.password, hash, 'kept');
  await browser.post(`/app/links/${id}/edit`, { url: 'https://example.com/edited', custom: 'edit-me', removePassword: 'on' });
  link = (await t.store.get<Link>('links', id))!;
  assert.equal(link.password, null);
  const events = (await t.store.find('events', { owner: u.id })).items.map((e) => e.type);
  assert.equal(events.filter((e) => e === 'link.updated').length, 2);

  const page = await browser.get(`/app/links/${id}`);
  assert.match(page.text, /<input type="hidden" name="confirmed" value=""\/?>/, 'the script confirms in the form');
  // Without the script's question, the server asks on a page first, and deletes nothing yet.
  const asked = await browser.post(`/app/links/${id}/delete`, { confirmed: '' });
  assert.equal(asked.status, 200);
  assert.match(asked.text, /<h1>Delete http:\/\/sho\.rt\/edit-me\?<\/h1>/);
  assert.match(asked.text, /<input type="hidden" name="confirmed" value="yes"\/?>/);
  assert.ok(await t.store.get('links', id), 'not deleted before it is confirmed');
  const gone = await browser.post(`/app/links/${id}/delete`, { confirmed: 'yes' });
  assert.equal(gone.location, '/app/links?done=deleted');
  assert.equal(await t.store.get('links', id), undefined);
  assert.ok((await t.store.find('events', { owner: u.id })).items.some((e) => e.type === 'link.deleted'));
});

test("another user's link answers 404 on every screen and action, and is left as it was", async () => {
  const { t, browser } = await world();
  const other = await t.makeUser('owner');
  const theirs = (await t.call('POST', '/api/url/add', { key: other.key, body: { url: 'https://example.com/theirs', custom: 'theirs' } })).body.id as number;
  await browser.get('/app/links');
  for (const path of [`/app/links/${theirs}`, `/app/links/${theirs}/edit`, `/app/links/${theirs}/qr?format=png`]) assert.equal((await browser.get(path)).status, 404, path);
  assert.equal((await browser.post(`/app/links/${theirs}/edit`, { url: 'https://evil.example/' })).status, 404);
  assert.equal((await browser.post(`/app/links/${theirs}/delete`, { confirmed: '' })).status, 404);
  assert.equal((await browser.post(`/app/links/${theirs}/delete`, { confirmed: 'yes' })).status, 404);
  assert.equal((await browser.post('/app/links/bulk', { action: 'delete', ids: [String(theirs)], confirmed: 'yes' })).status, 404);
  const link = (await t.store.get<Link>('links', theirs))!;
  assert.equal(link.url, 'https://example.com/theirs');
  const list = await browser.get('/app/links');
  assert.doesNotMatch(list.text, /theirs/);
});

test('the list searches, filters by campaign, domain and channel, orders and pages; several links are deleted or moved at once', async () => {
  const { t, u, api, browser, campaign, channel } = await world();
  const ids: number[] = [];
  for (let i = 1; i <= 30; i++) ids.push((await api('POST', '/api/url/add', { url: `https://example.com/item/${i}`, custom: `item-${i}`, ...(i % 10 === 0 ? { channel } : {}) })).body.id);
  const page1 = await browser.get('/app/links');
  assert.equal((page1.text.match(/name="ids"/g) ?? []).length, 25);
  assert.match(page1.text, /Page 1 of 2 \(30 links\)/);
  assert.match(page1.text, /item-30/, 'newest first');
  const page2 = await browser.get('/app/links?page=2');
  assert.equal((page2.text.match(/name="ids"/g) ?? []).length, 5);
  assert.equal(((await browser.get('/app/links?per=50')).text.match(/name="ids"/g) ?? []).length, 30);
  const oldest = await browser.get('/app/links?sort=old&per=25');
  assert.ok(oldest.text.indexOf('/item-1<') < oldest.text.indexOf('/item-2<'));
  const search = await browser.get('/app/links?q=item-2');
  assert.equal((search.text.match(/name="ids"/g) ?? []).length, 11, 'item-2 and item-20..29');
  const byChannel = await browser.get(`/app/links?channel=${channel}`);
  assert.equal((byChannel.text.match(/name="ids"/g) ?? []).length, 3);
  assert.equal(((await browser.get('/app/links?domain=main')).text.match(/name="ids"/g) ?? []).length, 25);

  const moved = await browser.post('/app/links/bulk', { action: 'move', campaign: String(campaign), ids: ids.slice(0, 3).map(String), back: '/app/links?q=item' });
  assert.equal(moved.status, 303);
  assert.equal(moved.location, '/app/links?q=item&done=moved');
  assert.deepEqual((await linksOf(t, u.id)).filter((l) => l.campaign === campaign).map((l) => l.id), ids.slice(0, 3));
  assert.equal(((await browser.get(`/app/links?campaign=${campaign}`)).text.match(/name="ids"/g) ?? []).length, 3);

  const asked = await browser.post('/app/links/bulk', { action: 'delete', ids: ids.slice(0, 5).map(String), back: '/app/links?q=item', confirmed: '' });
  assert.equal(asked.status, 200, 'asked first, without the script');
  assert.match(asked.text, /<h1>Delete the 5 selected links\?<\/h1>/);
  assert.equal((asked.text.match(/name="ids"/g) ?? []).length, 5);
  assert.equal((await linksOf(t, u.id)).length, 30);
  const deleted = await browser.post('/app/links/bulk', { action: 'delete', ids: ids.slice(0, 5).map(String), confirmed: 'yes' });
  assert.equal(deleted.status, 303);
  assert.equal((await linksOf(t, u.id)).length, 25);
  await t.audit.flush();
  const bulk = (await t.store.find('audit', { owner: u.id })).items.filter((e) => e.route === '/app/links/bulk');
  assert.deepEqual(bulk.map((e) => e.status), [200, 200]);
  const none = await browser.post('/app/links/bulk', { action: 'delete' });
  assert.equal(none.status, 400);
});

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
/** The links a list page shows, in its order: alias and the clicks column. */
const listed = (html: string) => [...html.matchAll(/aria-label="Select ([^"]+)"[\s\S]*?<td class="n">([^<]*)<\/td>/g)].map((m) => `${m[1]} ${m[2]}`);

test('the list orders by clicks, most first, from clicks through the real redirect; and filters by a branded domain', async () => {
  const { t, api, browser } = await world();
  // Oldest to newest: 2, 5 and no clicks, so neither date order is the clicks order.
  for (const [alias, clicks] of [['few', 2], ['most', 5], ['none', 0]] as const) {
    await api('POST', '/api/url/add', { url: `https://example.com/${alias}`, custom: alias });
    for (let i = 0; i < clicks; i++) assert.equal((await t.app.request(`/${alias}`, { headers: { 'user-agent': FIREFOX } })).status, 302);
  }
  await t.counters.flush();
  assert.deepEqual(listed((await browser.get('/app/links')).text), ['none 0', 'most 5', 'few 2'], 'newest first');
  const byClicks = await browser.get('/app/links?sort=clicks');
  assert.equal(byClicks.status, 200);
  assert.deepEqual(listed(byClicks.text), ['most 5', 'few 2', 'none 0']);
  assert.match(byClicks.text, /<option value="clicks" selected="">Most clicks/);

  const domain = (await api('POST', '/api/domain/add', { domain: 'https://go.example.com' })).body.id as number;
  for (const alias of ['brand-one', 'brand-two']) assert.equal((await api('POST', '/api/url/add', { url: `https://example.com/${alias}`, custom: alias, domain: 'https://go.example.com' })).status, 200);
  const onBrand = await browser.get(`/app/links?domain=${domain}`);
  assert.equal(onBrand.status, 200);
  assert.deepEqual(listed(onBrand.text), ['brand-two 0', 'brand-one 0']);
  assert.match(onBrand.text, /https:\/\/go\.example\.com\/brand-one/);
  assert.match(onBrand.text, new RegExp(`<option value="${domain}" selected="">go\\.example\\.com`));
  assert.deepEqual(listed((await browser.get('/app/links?domain=main')).text), ['none 0', 'most 5', 'few 2']);
});

test('a link made in the dashboard on a branded domain with a splash page, and one with a CTA overlay, are stored with them', async () => {
  const { t, u, api, browser } = await world();
  const domain = (await api('POST', '/api/domain/add', { domain: 'https://go.example.com' })).body.id as number;
  const splash = (await api('POST', '/api/splash/add', { name: 'Wait', title: 'One moment' })).body.id as number;
  const overlay = (await api('POST', '/api/overlay/add', { type: 'message', name: 'Buy', message: 'Buy now', buttontext: 'Go', buttonlink: 'https://shop.example.com/' })).body.id as number;
  const form = await browser.get('/app/links/new');
  assert.match(form.text, /<option value="go\.example\.com">go\.example\.com<\/option>/);
  assert.match(form.text, new RegExp(`<option value="${splash}">Splash page: Wait</option>`));
  assert.match(form.text, new RegExp(`<option value="overlay-${overlay}">Overlay: Buy</option>`));
  const withSplash = await browser.post('/app/links', { url: 'https://example.com/splashed', custom: 'splashed', domain: 'go.example.com', type: String(splash) });
  assert.equal(withSplash.status, 303, withSplash.text);
  const withOverlay = await browser.post('/app/links', { url: 'https://example.com/overlaid', custom: 'overlaid', domain: 'go.example.com', type: `overlay-${overlay}` });
  assert.equal(withOverlay.status, 303, withOverlay.text);
  const stored = (await linksOf(t, u.id)).map((l) => [l.alias, l.domainId, l.type, l.splashId, l.overlayId]);
  assert.deepEqual(stored, [
    ['splashed', domain, 'splash', splash, null],
    ['overlaid', domain, 'overlay', null, overlay],
  ]);
  assert.match((await browser.get(withSplash.location!)).text, /https:\/\/go\.example\.com\/splashed/);
});

test("a link's statistics in the dashboard show a real click: its browser, its referrer's host and its country (from the configured header)", async () => {
  const { t, api, browser } = await world({ geoip: false, countryHeader: 'x-visitor-country' });
  const id = (await api('POST', '/api/url/add', { url: 'https://example.com/counted', custom: 'counted' })).body.id as number;
  const before = await browser.get(`/app/links/${id}`);
  assert.match(before.text, /id="panel-browser">Browsers<\/h2>\s*<p class="muted">No clicks in this period/);
  const click = await t.app.request('/counted', { headers: { 'user-agent': FIREFOX, referer: 'https://blog.example.net/post?x=1', 'x-visitor-country': 'DE' } });
  assert.equal(click.status, 302);
  assert.equal(click.headers.get('location'), 'https://example.com/counted');
  await t.counters.flush();
  const page = await browser.get(`/app/links/${id}`);
  assert.equal(page.status, 200);
  const panel = (name: string) => new RegExp(`id="panel-${name}">[\\s\\S]*?</section>`).exec(page.text)?.[0] ?? '';
  assert.match(panel('browser'), /<td>Firefox<\/td>\s*<td class="n">1<\/td>/);
  assert.match(panel('referrer'), /<td>blog\.example\.net<\/td>\s*<td class="n">1<\/td>/);
  assert.match(panel('country'), /Germany<\/td>\s*<td class="n">1<\/td>/);
  assert.match(page.text, /<span class="name">Clicks<\/span>\s*<b>1<\/b>/);
});

test('the QR code of a link: a preview and PNG and SVG downloads of its short URL', async () => {
  const { api, browser } = await world();
  const id = (await api('POST', '/api/url/add', { url: 'https://example.com/qr', custom: 'qr-me' })).body.id as number;
  const png = await browser.get(`/app/links/${id}/qr?format=png&download=1`);
  assert.equal(png.status, 200);
  assert.equal(png.res.headers.get('content-type'), 'image/png');
  assert.match(png.res.headers.get('content-disposition')!, /attachment; filename="qr-me-qr.png"/);
  const bytes = new Uint8Array(await png.res.arrayBuffer());
  assert.deepEqual([...bytes.slice(1, 4)], [0x50, 0x4e, 0x47]);
  const svg = await browser.get(`/app/links/${id}/qr?format=svg`);
  assert.equal(svg.res.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
  assert.match(await svg.res.text(), /^<svg|<\?xml/);
});

test('a searched or filtered list counts 10,000 matches past its page at most, and then says there are more', async () => {
  const p = listParams({ q: 'example', per: '50', page: '3' });
  assert.deepEqual(listStoreQuery({ owner: 7, search: { text: 'example', fields: ['url'] } }, p), {
    owner: 7,
    search: { text: 'example', fields: ['url'] },
    conditions: [],
    offset: 100,
    limit: 50,
    countUpTo: 100 + COUNT_AHEAD,
  });
  const item = { id: 1, alias: 'a', shorturl: 'http://sho.rt/a', longurl: 'https://example.com/', description: '', clicks: 0, date: '2026-01-01 00:00:00' };
  const render = (more: boolean) => String(LinkTable({ p, items: [item], total: 10_100, more, csrf: 'c', campaigns: [], canWrite: false }));
  const capped = render(true);
  assert.match(capped, /Page 3 of 202\+ \(more than 10,100 links\)/);
  assert.match(capped, /Your links, more than 10,100 in all/);
  assert.match(capped, /href="\/app\/links\?q=example&amp;per=50&amp;page=4">Next/);
  assert.match(render(false), /Page 3 of 202 \(10,100 links\)/);
});
