/**
 * The table-driven screens of the dashboard (src/dashboard/resources): for every row wired there,
 * create (valid, and invalid with the API's message beside its field and nothing stored), the list,
 * edit, delete through its confirmation, another user's record answering 404, and a scoped session
 * refused; then what single rows add (a campaign's links, a channel's items, a domain's DNS steps).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyOf, errorsOf, inputsOf } from '../src/dashboard/resources/inputs.ts';
import { RESOURCE_SCREENS } from '../src/dashboard/resources/rows.ts';
import { ApiError } from '../src/errors.ts';
import { campaigns } from '../src/resources/campaigns.ts';
import { channels } from '../src/resources/channels.ts';
import { domains } from '../src/resources/domains.ts';
import { links } from '../src/resources/links.ts';
import { overlays } from '../src/resources/overlays.ts';
import { pixels } from '../src/resources/pixels.ts';
import { splash } from '../src/resources/splash.ts';
import type { StoredRecord } from '../src/store/store.ts';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';

type Fields = Record<string, string | string[]>;

/** Per screen: a valid form and what it stores, a refused one (which field, which message), an edit and what it stores. */
const CASES: Record<string, { create: Fields; stored: Record<string, unknown>; invalid: Fields; field: string; message: RegExp; edit: Fields; edited: Record<string, unknown>; apiCreate: Record<string, unknown> }> = {
  pixels: {
    create: { type: 'gtmpixel', name: 'Tag <b>manager</b>', tag: 'GTM-ABC1' },
    stored: { type: 'gtmpixel', name: 'Tag <b>manager</b>', tag: 'GTM-ABC1' },
    invalid: { type: 'gtmpixel', name: '', tag: 'GTM-kept' },
    field: 'name',
    message: /Pixel name cannot be empty/,
    edit: { name: 'Renamed', tag: 'GTM-XYZ9' },
    edited: { name: 'Renamed', tag: 'GTM-XYZ9', type: 'gtmpixel' },
    apiCreate: { type: 'fbpixel', name: 'Theirs', tag: '123' },
  },
  campaigns: {
    create: { name: 'Spring <sale>', slug: 'spring-x', public: 'on' },
    stored: { name: 'Spring <sale>', slug: 'spring-x', public: true },
    invalid: { name: 'S', slug: 'kept-slug' },
    field: 'name',
    message: /at least 2 characters/,
    edit: { name: 'Summer', slug: '' },
    edited: { name: 'Summer', slug: null, public: false },
    apiCreate: { name: 'Theirs' },
  },
  channels: {
    create: { name: 'Newsletter', description: 'Weekly', color: '#112233' },
    stored: { name: 'Newsletter', description: 'Weekly', color: '#112233', starred: false },
    invalid: { name: 'Kept name', color: 'blue' },
    field: 'color',
    message: /HEX/,
    edit: { name: 'Newsletter', description: '', color: '#445566', starred: 'on' },
    edited: { description: '', color: '#445566', starred: true },
    apiCreate: { name: 'Theirs' },
  },
  domains: {
    create: { domain: 'https://go.example.com' },
    stored: { domain: 'https://go.example.com', redirectroot: '', redirect404: '' },
    invalid: { domain: 'not a domain', redirectroot: 'https://kept.example/' },
    field: 'domain',
    message: /valid domain/,
    edit: { redirectroot: 'https://example.com/home', redirect404: '' },
    edited: { domain: 'https://go.example.com', redirectroot: 'https://example.com/home', redirect404: '' },
    apiCreate: { domain: 'https://theirs.example.org' },
  },
  splash: {
    create: { name: 'Wait', title: 'Hello', countdown: '7' },
    stored: { name: 'Wait', title: 'Hello', text: '', image: '', countdown: 7 },
    invalid: { name: 'Kept', countdown: '99' },
    field: 'countdown',
    message: /0 to 60/,
    edit: { name: 'Wait', title: '', text: 'Read me', image: '', countdown: '' },
    edited: { title: '', text: 'Read me', countdown: 7 },
    apiCreate: { name: 'Theirs' },
  },
  overlays: {
    create: { type: 'contact', name: 'Ask us', position: 'center', fields: ['name', 'email'], email: 'inbox@example.com', textcolor: '#000000', bgcolor: '#ffffff', buttoncolor: '#000000' },
    stored: { type: 'contact', name: 'Ask us', position: 'center', fields: ['name', 'email'], email: 'inbox@example.com', bgcolor: '#ffffff' },
    invalid: { type: 'message', name: 'Kept', buttonlink: 'ftp://example.com', fields: ['name'] },
    field: 'buttonlink',
    message: /Button link must/,
    edit: { type: 'message', name: 'Offer', message: 'Save 10%', buttontext: 'Go', buttonlink: 'https://example.com/offer', position: 'top-right', fields: ['message'], email: '', textcolor: '#000000', bgcolor: '#112233', buttoncolor: '#000000' },
    edited: { type: 'message', name: 'Offer', buttonlink: 'https://example.com/offer', position: 'top-right', fields: ['message'], bgcolor: '#112233' },
    apiCreate: { type: 'message', name: 'Theirs' },
  },
};

test('the inputs of a form are derived from the row: a choice is a select, yes/no a checkbox, a colour a picker, a long text a box, an id of the user\'s records a select of them', () => {
  const kinds = (row: Parameters<typeof inputsOf>[0], kind: 'create' | 'update') => Object.fromEntries(inputsOf(row, kind).map((i) => [i.name, i.kind]));
  assert.deepEqual(kinds(pixels, 'create'), { type: 'select', name: 'text', tag: 'text' });
  assert.deepEqual(kinds(pixels, 'update'), { name: 'text', tag: 'text' });
  assert.deepEqual(kinds(campaigns, 'create'), { name: 'text', slug: 'text', public: 'checkbox' });
  assert.deepEqual(kinds(channels, 'create'), { name: 'text', description: 'textarea', color: 'color', starred: 'checkbox' });
  assert.deepEqual(kinds(domains, 'update'), { redirectroot: 'url', redirect404: 'url' });
  assert.deepEqual(kinds(splash, 'create'), { name: 'text', title: 'text', text: 'textarea', image: 'url', countdown: 'number' });
  const overlay = inputsOf(overlays, 'create');
  assert.deepEqual(overlay.find((i) => i.name === 'fields'), { name: 'fields', kind: 'checks', required: false, options: ['name', 'email', 'phone', 'message'], initial: ['name', 'email', 'message'] });
  assert.equal(overlay.find((i) => i.name === 'type')!.required, true);
  assert.deepEqual(inputsOf(splash, 'create').find((i) => i.name === 'countdown'), { name: 'countdown', kind: 'number', required: false, min: 0, max: 60, initial: '5' });
  const link = inputsOf(links, 'create');
  assert.deepEqual([link.find((i) => i.name === 'campaign')?.kind, link.find((i) => i.name === 'campaign')?.collection], ['reference', 'campaigns']);
  assert.equal(link.find((i) => i.name === 'pixels')?.kind, 'references');
  assert.notEqual(link.find((i) => i.name === 'domain')?.kind, 'reference', 'a host name is no id to pick');
});

test('a posted form becomes the body a client of the API would send', () => {
  const cases: { name: string; row: Parameters<typeof inputsOf>[0]; kind: 'create' | 'update'; form: Record<string, string | string[]>; body: Record<string, unknown> }[] = [
    { name: 'empty optional fields are left out of a create', row: splash, kind: 'create', form: { name: 'A', title: '', countdown: '' }, body: { name: 'A' } },
    { name: 'an update sends empty texts (they clear) but not an empty number (it keeps)', row: splash, kind: 'update', form: { name: 'A', title: '', text: '', image: '', countdown: '' }, body: { name: 'A', title: '', text: '', image: '' } },
    { name: 'numbers are numbers, other text is left for the API to refuse', row: splash, kind: 'create', form: { name: 'A', countdown: '7' }, body: { name: 'A', countdown: 7 } },
    { name: 'a number box holding no number', row: splash, kind: 'create', form: { name: 'A', countdown: 'soon' }, body: { name: 'A', countdown: 'soon' } },
    { name: 'a ticked checkbox', row: campaigns, kind: 'create', form: { name: 'Ab', public: 'on' }, body: { name: 'Ab', public: true } },
    { name: 'an unticked checkbox', row: campaigns, kind: 'update', form: { name: 'Ab', slug: '' }, body: { name: 'Ab', slug: '', public: false } },
    { name: 'a group of boxes', row: overlays, kind: 'create', form: { type: 'contact', name: 'C', fields: ['name', 'phone'] }, body: { type: 'contact', name: 'C', fields: ['name', 'phone'] } },
    { name: 'ids picked among the user\'s records', row: links, kind: 'create', form: { url: 'https://example.com', campaign: '12', pixels: ['3', 'x'] }, body: { url: 'https://example.com', campaign: 12, pixels: [3, 'x'] } },
  ];
  for (const c of cases) {
    const body = bodyOf(inputsOf(c.row, c.kind), c.form, c.kind);
    // Only what the case names: a row's other checkboxes and groups are always sent.
    assert.deepEqual(Object.fromEntries(Object.entries(body).filter(([k]) => k in c.body)), c.body, c.name);
    assert.deepEqual(Object.keys(body).filter((k) => !(k in c.body) && typeof body[k] !== 'boolean' && !Array.isArray(body[k])), [], `${c.name}: nothing else`);
  }
});

test("the API's message goes beside the field it is about", () => {
  const names = ['name', 'slug', 'public', 'fields'];
  const cases: [ApiError, string][] = [
    [new ApiError(400, 'Campaign name cannot be empty.', { name: ['Campaign name cannot be empty.'] }), 'name'],
    [new ApiError(400, 'Invalid fields: each must be one of name.', { 'fields.1': ['Invalid fields: each must be one of name.'] }), 'fields'],
    [new ApiError(400, 'You already have a campaign with that name.'), 'name'],
    [new ApiError(400, 'This slug is currently not available. Please choose another one.'), 'slug'],
    [new ApiError(400, 'Missing required parameter: public'), 'public'],
    [new ApiError(400, 'Something went wrong.'), 'form'],
  ];
  for (const [err, field] of cases) assert.deepEqual(errorsOf(err, names), { [field]: err.message }, err.message);
});

async function world() {
  const t = await testApp({ rateLimit: 0 });
  const u = await t.makeUser('screens');
  const other = await t.makeUser('other');
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_screens', 'secret-pw')).status, 303);
  return { t, u, other, browser };
}

const mine = async (t: Awaited<ReturnType<typeof testApp>>, collection: string, owner: number) => (await t.store.find<StoredRecord>(collection, { owner, sort: { field: 'id', direction: 'asc' } })).items;
const errorText = (html: string, field: string) => new RegExp(`id="${field}-error">([^<]*)<`).exec(html)?.[1] ?? '';

test('every wired row: create, refuse with the message beside the field, list, edit, delete; audited', async (t0) => {
  const { t, u, browser } = await world();
  assert.deepEqual(RESOURCE_SCREENS.map((s) => s.path).sort(), Object.keys(CASES).sort(), 'every wired screen has a case');
  for (const spec of RESOURCE_SCREENS) {
    const c = CASES[spec.path]!;
    const base = `/app/${spec.path}`;
    await t0.test(spec.path, async () => {
      const page = await browser.get(`${base}/new`);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      for (const name of Object.keys(c.create)) assert.match(page.text, new RegExp(`name="${name}"`), `${spec.path}: an input for ${name}`);

      const refused = await browser.post(base, c.invalid);
      assert.equal(refused.status, 400, refused.text.slice(0, 300));
      assert.match(errorText(refused.text, c.field), c.message, `${spec.path}: the message is beside ${c.field}`);
      assert.match(refused.text, new RegExp(`aria-describedby="${c.field}-error`), `${spec.path}: the message is tied to its input`);
      const kept = Object.values(c.invalid).flat().find((v) => /kept/i.test(v));
      if (kept) assert.ok(refused.text.includes(kept), `${spec.path}: what was typed is kept`);
      assert.equal((await mine(t, spec.row.collection, u.id)).length, 0, `${spec.path}: nothing stored`);

      await browser.get(`${base}/new`);
      const made = await browser.post(base, c.create);
      assert.equal(made.status, 303, made.text.slice(0, 500));
      const [record] = await mine(t, spec.row.collection, u.id);
      assert.ok(record);
      assert.equal(made.location, `${base}/${record.id}?done=created`);
      for (const [k, v] of Object.entries(c.stored)) assert.deepEqual(record[k], v, `${spec.path}: stored ${k}`);

      const list = await browser.get(base);
      assert.equal(list.status, 200);
      assert.ok(list.text.includes(`href="${base}/${record.id}"`), `${spec.path}: listed`);
      assert.doesNotMatch(list.text, /<b>manager|<sale>/, 'stored text is escaped');

      const shown = await browser.get(`${base}/${record.id}`);
      assert.equal(shown.status, 200);
      assert.match(shown.text, new RegExp(`action="${base}/${record.id}/edit"`));
      const saved = await browser.post(`${base}/${record.id}/edit`, c.edit);
      assert.equal(saved.status, 303, saved.text.slice(0, 500));
      const edited = (await t.store.get<StoredRecord>(spec.row.collection, record.id))!;
      for (const [k, v] of Object.entries(c.edited)) assert.deepEqual(edited[k], v, `${spec.path}: edited ${k}`);

      const confirm = await browser.get(`${base}/${record.id}/delete`);
      assert.equal(confirm.status, 200);
      assert.match(confirm.text, new RegExp(`<form method="post" action="${base}/${record.id}/delete"`));
      assert.equal(await t.store.get(spec.row.collection, record.id) !== undefined, true, 'the confirmation page deletes nothing');
      const gone = await browser.post(`${base}/${record.id}/delete`);
      assert.equal(gone.location, `${base}?done=deleted`);
      assert.equal(await t.store.get(spec.row.collection, record.id), undefined);

      await t.audit.flush();
      const audit = (await t.store.find('audit', { owner: u.id, sort: { field: 'id', direction: 'asc' } })).items.filter((e) => e.resource === spec.row.collection);
      assert.deepEqual(audit.map((e) => [e.route, e.resourceId, e.status]), [
        [base, null, 400],
        [base, record.id, 200],
        [`${base}/:id/edit`, record.id, 200],
        [`${base}/:id/delete`, record.id, 200],
      ]);
    });
  }
});

test("another user's record answers 404 on every screen and action, and is left as it was", async () => {
  const { t, other, browser } = await world();
  for (const spec of RESOURCE_SCREENS) {
    const base = `/app/${spec.path}`;
    const made = await t.call('POST', spec.row.paths.create!, { key: other.key, body: CASES[spec.path]!.apiCreate });
    assert.equal(made.status, 200, made.text);
    const id = made.body.id as number;
    const before = await t.store.get(spec.row.collection, id);
    for (const path of [`${base}/${id}`, `${base}/${id}/delete`]) assert.equal((await browser.get(path)).status, 404, path);
    await browser.get(base);
    assert.equal((await browser.post(`${base}/${id}/edit`, CASES[spec.path]!.edit)).status, 404);
    assert.equal((await browser.post(`${base}/${id}/delete`)).status, 404);
    assert.deepEqual(await t.store.get(spec.row.collection, id), before);
    assert.doesNotMatch((await browser.get(base)).text, /Theirs|theirs\.example/, `${spec.path}: not listed`);
  }
});

test("a session opened with a key that lacks a row's scopes is refused its screens, and stores nothing", async () => {
  const { t, u } = await world();
  const key = await t.call('POST', '/api/keys', { key: u.key, body: { name: 'pixels reader', scopes: ['pixels:read'] } });
  const reader = new DashClient(t.app);
  await reader.get('/app/login');
  assert.equal((await reader.post('/app/login', { apikey: key.body.apikey })).status, 303);
  assert.equal((await reader.get('/app/pixels')).status, 200);
  assert.doesNotMatch((await reader.get('/app/pixels')).text, /New pixel/);
  assert.equal((await reader.get('/app/pixels/new')).status, 403);
  const refused = await reader.post('/app/pixels', CASES.pixels!.create);
  assert.equal(refused.status, 403);
  assert.match(refused.text, /pixels:write/);
  const campaigns = await reader.get('/app/campaigns');
  assert.equal(campaigns.status, 403);
  assert.match(campaigns.text, /campaigns:read/);
  assert.equal(await t.store.count('pixels'), 0);
});

test('the list searches and pages', async () => {
  const { t, u, browser } = await world();
  for (let i = 1; i <= 30; i++) assert.equal((await t.call('POST', '/api/pixel/add', { key: u.key, body: { type: 'gapixel', name: `Pixel ${i}`, tag: `G-${i}` } })).status, 200);
  const rows = (html: string) => (html.match(/href="\/app\/pixels\/\d+"/g) ?? []).length;
  const first = await browser.get('/app/pixels');
  assert.equal(rows(first.text), 25);
  assert.match(first.text, /Page 1 of 2 \(30 in all\)/);
  assert.equal(rows((await browser.get('/app/pixels?page=2')).text), 5);
  const found = await browser.get('/app/pixels?q=Pixel%202');
  assert.equal(rows(found.text), 11, 'Pixel 2 and Pixel 20..29');
});

test("a campaign's page shows its public page and rotator; a duplicate name is refused beside the name", async () => {
  const { t, u, browser } = await world();
  await browser.get('/app/campaigns/new');
  const made = await browser.post('/app/campaigns', { name: 'Autumn', slug: 'autumn-r' });
  const page = await browser.get(made.location!);
  assert.match(page.text, /http:\/\/sho\.rt\/r\/autumn-r/);
  assert.match(page.text, /http:\/\/sho\.rt\/u\/user_screens\/autumn-r-\d+/);
  const twice = await browser.post('/app/campaigns', { name: 'autumn' });
  assert.equal(twice.status, 400);
  assert.match(errorText(twice.text, 'name'), /already have a campaign/);
  assert.equal((await mine(t, 'campaigns', u.id)).length, 1);
});

test("a channel's page lists its items and adds one of the user's links through the API's assign", async () => {
  const { t, u, other, browser } = await world();
  const channel = (await t.call('POST', '/api/channel/add', { key: u.key, body: { name: 'Reading' } })).body.id as number;
  const theirs = (await t.call('POST', '/api/url/add', { key: other.key, body: { url: 'https://example.com/x', custom: 'not-mine' } })).body.id as number;
  const empty = await browser.get(`/app/channels/${channel}`);
  assert.match(empty.text, /You have no link, QR code or bio page to add/);
  assert.doesNotMatch(empty.text, /name="item"/);
  const link = (await t.call('POST', '/api/url/add', { key: u.key, body: { url: 'https://example.com/read', custom: 'read-me' } })).body.id as number;
  const page = await browser.get(`/app/channels/${channel}`);
  assert.match(page.text, /The channel holds nothing yet/);
  assert.match(page.text, new RegExp(`value="links:${link}"`));
  assert.doesNotMatch(page.text, /not-mine|example\.com\/x/);
  const added = await browser.post(`/app/channels/${channel}/items`, { item: `links:${link}` });
  assert.equal(added.status, 303);
  assert.deepEqual((await t.store.get<StoredRecord>('links', link))!.channels, [channel]);
  assert.match((await browser.get(`/app/channels/${channel}`)).text, /https:\/\/example\.com\/read/);
  assert.equal((await browser.post(`/app/channels/${channel}/items`, { item: `links:${link}` })).status, 400, 'already in it');
  assert.equal((await browser.post(`/app/channels/${channel}/items`, { item: `links:${theirs}` })).status, 404);
  assert.deepEqual((await t.store.get<StoredRecord>('links', theirs))!.channels ?? [], []);
  await t.audit.flush();
  const audit = (await t.store.find('audit', { owner: u.id, sort: { field: 'id', direction: 'asc' } })).items.filter((e) => e.route === '/app/channels/:id/items');
  assert.deepEqual(audit.map((e) => [e.resourceId, e.status]), [[channel, 200], [null, 400], [null, 404]]);
});

test("a domain's pages say which DNS records to publish: the CNAME, and the TXT ownership proof", async () => {
  const { t, u, browser } = await world();
  const fresh = await browser.get('/app/domains/new');
  assert.match(fresh.text, /CNAME/);
  assert.match(fresh.text, /<code>sho\.rt<\/code>/);
  const id = (await t.call('POST', '/api/domain/add', { key: u.key, body: { domain: 'https://go.brand.example' } })).body.id as number;
  const proof = await t.call('GET', '/api/domains/verification?domain=go.brand.example', { key: u.key });
  const page = await browser.get(`/app/domains/${id}`);
  assert.ok(page.text.includes(String(proof.body.data.record.value)), 'the TXT value the API names');
  assert.ok(page.text.includes('_shortlink.go.brand.example'));
});
