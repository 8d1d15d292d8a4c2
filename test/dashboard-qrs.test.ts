import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import type { Qr } from '../src/resources/qrs.ts';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';

/** An app with a signed-in user on the QR codes screen. */
async function world() {
  const t = await testApp({ rateLimit: 0 });
  const u = await t.makeUser('qrs');
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_qrs', 'secret-pw')).status, 303);
  await browser.get('/app/qrs/new');
  return { t, u, browser };
}

const qrsOf = async (t: Awaited<ReturnType<typeof testApp>>, owner: number) => (await t.store.find<Qr>('qrs', { owner, sort: { field: 'id', direction: 'asc' } })).items;
const tinyPng = () => new Uint8Array(PNG.sync.write(Object.assign(new PNG({ width: 8, height: 8 }), {})));

// Every type the API takes, with the boxes its form shows, and the data the API then stores.
const TYPES: { type: string; form: Record<string, string>; data: unknown }[] = [
  { type: 'text', form: { data: 'Hello there' }, data: 'Hello there' },
  { type: 'link', form: { data: 'https://example.com/menu' }, data: 'https://example.com/menu' },
  { type: 'phone', form: { data: '+1 555 0100' }, data: '+1 555 0100' },
  { type: 'email', form: { data_email: 'ann@example.com', data_subject: 'Hi', data_body: '' }, data: { email: 'ann@example.com', subject: 'Hi' } },
  { type: 'sms', form: { data_phone: '+15550100', data_message: 'Yes' }, data: { phone: '+15550100', message: 'Yes' } },
  { type: 'wifi', form: { data_ssid: 'Cafe', data_password: 'latte123', data_encryption: 'WPA', data_hidden: 'on' }, data: { ssid: 'Cafe', password: 'latte123', encryption: 'WPA', hidden: true } },
  { type: 'vcard', form: { data_name: 'Ann Lee', data_fname: 'Ann', data_lname: 'Lee', data_email: 'ann@example.com', data_address: 'Storgata 1', data_city: 'Oslo', data_website: 'https://ann.example.com' }, data: { name: 'Ann Lee', fname: 'Ann', lname: 'Lee', email: 'ann@example.com', address: 'Storgata 1', city: 'Oslo', website: 'https://ann.example.com' } },
];

test('a QR code of every type is made from its type form, with colours, stored as the API stores it, audited, and listed with its preview', async (ctx) => {
  const { t, u, browser } = await world();
  for (const c of TYPES) {
    await ctx.test(c.type, async () => {
      const form = await browser.get(`/app/qrs/new?type=${c.type}`);
      assert.equal(form.status, 200);
      for (const name of Object.keys(c.form)) assert.match(form.text, new RegExp(`name="${name}"`), `${c.type} shows ${name}`);
      const made = await browser.post('/app/qrs', { type: c.type, name: `My ${c.type}`, foreground: '#112233', background: '#fafafa', ...c.form });
      assert.equal(made.status, 303, made.text);
      const qr = (await qrsOf(t, u.id)).at(-1)!;
      assert.equal(made.location, `/app/qrs/${qr.id}?done=created`);
      assert.equal(qr.type, c.type);
      assert.deepEqual(qr.data, c.data);
      assert.equal(qr.name, `My ${c.type}`);
      assert.equal(qr.foreground, 'rgb(17,34,51)');
      assert.equal(qr.background, 'rgb(250,250,250)');
      assert.equal(qr.logo, null);
      // The edit form shows every box as stored: saved unchanged, the data is the same.
      const edit = await browser.get(`/app/qrs/${qr.id}/edit`);
      for (const [name, value] of Object.entries(c.form)) if (value !== '' && value !== 'on') assert.ok(edit.text.includes(`name="${name}"`) && edit.text.includes(value), `${c.type}: ${name} shown`);
      assert.equal((await browser.post(`/app/qrs/${qr.id}/edit`, { type: c.type, name: `My ${c.type}`, ...c.form })).status, 303);
      assert.deepEqual((await t.store.get<Qr>('qrs', qr.id))?.data, c.data);
    });
  }
  const list = await browser.get('/app/qrs');
  assert.equal(list.status, 200);
  assert.equal((list.text.match(/<img class="qr" src="\/app\/qrs\/\d+\/image\?format=svg"/g) ?? []).length, TYPES.length);
  assert.match(list.text, /My wifi/);
  await t.audit.flush();
  const audited = (await t.store.find('audit', { owner: u.id })).items.filter((e) => e.route === '/app/qrs');
  assert.deepEqual(audited.map((e) => e.status), TYPES.map(() => 200));
  assert.equal((await t.store.find('events', { owner: u.id })).items.filter((e) => e.type === 'qr.created').length, TYPES.length);
});

test("the API's messages are shown beside their fields, the form keeps what was typed, and nothing is stored", async () => {
  const { t, u, browser } = await world();
  const cases: { name: string; form: Record<string, string>; field: string; message: RegExp }[] = [
    { name: 'a colour that is none', form: { type: 'text', data: 'hi', foreground: 'blue-ish' }, field: 'foreground', message: /colour like rgb/ },
    { name: 'a phone number that is none', form: { type: 'sms', data_phone: 'call me', data_message: 'kept text' }, field: 'data_phone', message: /valid phone number/ },
    { name: 'an empty text', form: { type: 'text', data: '' }, field: 'data', message: /must not be empty/ },
    { name: 'an email QR without its address', form: { type: 'email', data_subject: 'Hi' }, field: 'data_email', message: /required/ },
    { name: 'a wifi network without its password', form: { type: 'wifi', data_ssid: 'Cafe', data_encryption: 'WEP' }, field: 'data_password', message: /password is required/ },
    { name: 'a logo URL that is no image', form: { type: 'text', data: 'hi', logo: 'https://example.com/logo.gif' }, field: 'logo', message: /PNG or a JPEG/ },
    { name: 'a long name', form: { type: 'text', data: 'hi', name: 'n'.repeat(101) }, field: 'name', message: /at most 100/ },
  ];
  for (const c of cases) {
    const res = await browser.post('/app/qrs', c.form);
    assert.equal(res.status, 400, c.name);
    const shown = c.field === 'form' ? /<p class="err" role="alert">([^<]*)/.exec(res.text) : new RegExp(`id="${c.field}-error">([^<]*)`).exec(res.text);
    assert.ok(shown, `${c.name}: a message at ${c.field}`);
    assert.match(shown[1]!, c.message, c.name);
    // Once, and without the API's path before it (the field says which it is).
    assert.equal(res.text.split(shown[1]!).length - 1, 1, `${c.name}: shown once`);
    assert.doesNotMatch(shown[1]!, /^data[.:_]/, c.name);
  }
  const kept = await browser.post('/app/qrs', { type: 'sms', data_phone: 'call me', data_message: 'kept <text>' });
  assert.match(kept.text, /kept &lt;text&gt;<\/textarea>/);
  assert.equal((await qrsOf(t, u.id)).length, 0);
  await t.audit.flush();
  assert.ok((await t.store.find('audit', { owner: u.id })).items.filter((e) => e.route === '/app/qrs').every((e) => e.status === 400));
});

test('a logo is uploaded as an image (an other file is refused beside the field), kept on edit, and removed; the code is edited and deleted', async () => {
  const { t, u, browser } = await world();
  const refused = await browser.upload('/app/qrs', { type: 'text', data: 'logo me' }, { logo_file: { name: 'logo.png', type: 'image/png', bytes: new TextEncoder().encode('not an image') } });
  assert.equal(refused.status, 400);
  assert.match(/id="logo-error">([^<]*)/.exec(refused.text)?.[1] ?? '', /PNG or a JPEG/);
  assert.equal((await qrsOf(t, u.id)).length, 0);

  const made = await browser.upload('/app/qrs', { type: 'text', data: 'logo me', foreground: '#000000', background: '#ffffff' }, { logo_file: { name: 'logo.png', type: 'image/png', bytes: tinyPng() } });
  assert.equal(made.status, 303, made.text);
  let [qr] = await qrsOf(t, u.id);
  assert.match(qr!.logo!, /^data:image\/png;base64,iVBOR/);
  const png = await browser.get(`/app/qrs/${qr!.id}/image?format=png`);
  assert.equal(png.status, 200);

  const asWifi = await browser.get(`/app/qrs/${qr!.id}/edit?type=wifi`);
  assert.match(asWifi.text, /name="data_ssid" type="text" value=""/, "another type's boxes, empty");
  assert.match(asWifi.text, /name="type" value="wifi"/);
  const edit = await browser.get(`/app/qrs/${qr!.id}/edit`);
  assert.match(edit.text, /The logo is an uploaded image/);
  assert.match(edit.text, /Hello|logo me/);
  const saved = await browser.upload(`/app/qrs/${qr!.id}/edit`, { type: 'link', data: 'https://example.com/new', name: 'Renamed', foreground: '#ff0000', background: '#ffffff' }, {});
  assert.equal(saved.status, 303, saved.text);
  [qr] = await qrsOf(t, u.id);
  assert.equal(qr!.type, 'link');
  assert.equal(qr!.data, 'https://example.com/new');
  assert.equal(qr!.name, 'Renamed');
  assert.equal(qr!.foreground, 'rgb(255,0,0)');
  assert.match(qr!.logo!, /^data:image\/png/, 'kept');
  await browser.get(`/app/qrs/${qr!.id}/edit`);
  assert.equal((await browser.post(`/app/qrs/${qr!.id}/edit`, { type: 'link', data: 'https://example.com/new', remove_logo: 'on' })).status, 303);
  [qr] = await qrsOf(t, u.id);
  assert.equal(qr!.logo, null);
  assert.equal(qr!.name, 'Renamed');

  await browser.get(`/app/qrs/${qr!.id}`);
  const gone = await browser.post(`/app/qrs/${qr!.id}/delete`);
  assert.equal(gone.location, '/app/qrs?done=deleted');
  assert.equal((await qrsOf(t, u.id)).length, 0);
  assert.deepEqual((await t.store.find('events', { owner: u.id })).items.map((e) => e.type), ['qr.created'], 'one event: the API has no qr.updated or qr.deleted');
});

test('a QR code downloads as PNG and SVG with its colours, and its page offers both', async () => {
  const { t, u, browser } = await world();
  await browser.post('/app/qrs', { type: 'link', data: 'https://example.com/menu', name: 'Menu', foreground: '#aa0000', background: '#ffffff' });
  const [qr] = await qrsOf(t, u.id);
  const page = await browser.get(`/app/qrs/${qr!.id}`);
  assert.match(page.text, new RegExp(`href="/app/qrs/${qr!.id}/image\\?format=png&amp;download=1"`));
  assert.match(page.text, new RegExp(`href="http://sho.rt/qr/${qr!.alias}"`), 'the public image');
  const png = await browser.get(`/app/qrs/${qr!.id}/image?format=png&download=1`);
  assert.equal(png.status, 200);
  assert.equal(png.res.headers.get('content-type'), 'image/png');
  assert.equal(png.res.headers.get('content-disposition'), `attachment; filename="${qr!.alias}-qr.png"`);
  assert.deepEqual([...new Uint8Array(await png.res.arrayBuffer()).slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const svg = await browser.get(`/app/qrs/${qr!.id}/image?format=svg&download=1`);
  assert.equal(svg.res.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
  const text = await svg.res.text();
  assert.match(text, /<svg/);
  assert.match(text, /#aa0000|rgb\(170,\s*0,\s*0\)/i, 'drawn in its foreground colour');
});

test("another user's QR code answers 404 everywhere and is left as it was; a key without qr:write may only look", async () => {
  const { t, u, browser } = await world();
  const other = await t.makeUser('qrowner');
  const theirs = (await t.call('POST', '/api/qr/add', { key: other.key, body: { type: 'text', data: 'theirs', name: 'Theirs' } })).body.id as number;
  await browser.get('/app/qrs');
  for (const path of [`/app/qrs/${theirs}`, `/app/qrs/${theirs}/edit`, `/app/qrs/${theirs}/image?format=png`]) assert.equal((await browser.get(path)).status, 404, path);
  assert.equal((await browser.post(`/app/qrs/${theirs}/edit`, { type: 'text', data: 'mine now' })).status, 404);
  assert.equal((await browser.post(`/app/qrs/${theirs}/delete`)).status, 404);
  assert.deepEqual((await t.store.get<Qr>('qrs', theirs))?.data, 'theirs');
  assert.doesNotMatch((await browser.get('/app/qrs')).text, /Theirs/);

  const key = (await t.call('POST', '/api/keys', { key: u.key, body: { name: 'reader', scopes: ['qr:read'] } })).body.apikey as string;
  const reader = new DashClient(t.app);
  await reader.get('/app/login');
  assert.equal((await reader.post('/app/login', { apikey: key })).status, 303);
  const list = await reader.get('/app/qrs');
  assert.equal(list.status, 200);
  assert.doesNotMatch(list.text, /New QR code/);
  assert.equal((await reader.get('/app/qrs/new')).status, 403);
  const refused = await reader.post('/app/qrs', { type: 'text', data: 'nope' });
  assert.equal(refused.status, 403);
  assert.match(refused.text, /qr:write/);
  assert.equal((await qrsOf(t, u.id)).length, 0);
  const linksOnly = (await t.call('POST', '/api/keys', { key: u.key, body: { name: 'links', scopes: ['links:read'] } })).body.apikey as string;
  const linker = new DashClient(t.app);
  await linker.get('/app/login');
  await linker.post('/app/login', { apikey: linksOnly });
  assert.equal((await linker.get('/app/qrs')).status, 403);
});
