import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

const PNG_1x1 =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('QR codes', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const add = (body: unknown) => call('POST', '/api/qr/add', { key: alice.key, body });

  await t.test('add answers {error, id, link} with link = BASE_URL/qr/<alias>', async () => {
    const r = await add({ type: 'link', data: 'https://example.com', name: 'Site' });
    assert.equal(r.status, 200, r.text);
    const stored = (await store.get('qrs', r.body.id))!;
    assert.deepEqual(r.body, { error: 0, id: r.body.id, link: `http://sho.rt/qr/${stored.alias}` });
    assert.equal(stored.foreground, 'rgb(0,0,0)');
    assert.equal(stored.background, 'rgb(255,255,255)');
  });

  await t.test('a default name is given when none is sent', async () => {
    const r = await add({ type: 'text', data: 'hi' });
    assert.equal((await store.get('qrs', r.body.id))!.name, 'TEXT QR code');
  });

  const valid: { type: string; data: unknown }[] = [
    { type: 'text', data: 'Hello' },
    { type: 'link', data: 'https://example.com/x' },
    { type: 'phone', data: '+1 (555) 010-0000' },
    { type: 'email', data: { email: 'a@example.com', subject: 'Hi', body: 'Yo' } },
    { type: 'sms', data: { phone: '+15550100', message: 'hello' } },
    { type: 'wifi', data: { ssid: 'Home', password: 'pw12345', encryption: 'WPA' } },
    { type: 'vcard', data: { name: 'Ada Lovelace', phone: '+44 20 0000', email: 'ada@example.com', company: 'Engines' } },
  ];
  for (const c of valid) {
    await t.test(`accepts ${c.type} data`, async () => {
      const r = await add(c);
      assert.equal(r.status, 200, r.text);
      assert.equal((await store.get('qrs', r.body.id))!.type, c.type);
    });
  }

  const rejected: { name: string; body: unknown; message: string | RegExp }[] = [
    { name: 'unknown type', body: { type: 'bitcoin', data: 'x' }, message: /Invalid type/ },
    { name: 'missing data', body: { type: 'text' }, message: 'Missing required parameter: data' },
    { name: 'object for text', body: { type: 'text', data: { a: 1 } }, message: 'Invalid QR format or missing data.' },
    { name: 'string for vcard', body: { type: 'vcard', data: 'Ada' }, message: 'Invalid QR format or missing data.' },
    { name: 'email without address', body: { type: 'email', data: { subject: 's' } }, message: /data\.email/ },
    { name: 'wifi without ssid', body: { type: 'wifi', data: { password: 'x' } }, message: /data\.ssid/ },
    { name: 'link that is not a URL', body: { type: 'link', data: 'nope' }, message: /data/ },
    { name: 'colour out of range', body: { type: 'text', data: 'x', foreground: 'rgb(300,0,0)' }, message: /Invalid foreground/ },
    { name: 'colour in hex', body: { type: 'text', data: 'x', background: '#ffffff' }, message: /Invalid background/ },
    { name: 'logo that is a gif', body: { type: 'text', data: 'x', logo: 'https://e.com/a.gif' }, message: 'Logo must be either a PNG or a JPEG (Max 500kb).' },
    { name: 'logo data URI that lies about its type', body: { type: 'text', data: 'x', logo: 'data:image/png;base64,aGVsbG8=' }, message: 'Logo must be either a PNG or a JPEG (Max 500kb).' },
  ];
  for (const c of rejected) {
    await t.test(`rejects ${c.name} with a 400 and stores nothing`, async () => {
      const before = await snapshotOf(store, 'qrs');
      const r = await add(c.body);
      assert.equal(r.status, 400, r.text);
      if (typeof c.message === 'string') assert.equal(r.body.message, c.message);
      else assert.match(r.body.message, c.message);
      assert.equal(await snapshotOf(store, 'qrs'), before);
    });
  }

  await t.test('a PNG data URI logo is accepted', async () => {
    const r = await add({ type: 'text', data: 'x', logo: PNG_1x1 });
    assert.equal(r.status, 200, r.text);
    assert.equal((await store.get('qrs', r.body.id))!.logo, PNG_1x1);
  });

  await t.test('single QR: details and statistics as the reference shows', async () => {
    const r = await add({ type: 'text', data: 'stats', name: 'Stats' });
    const got = await call('GET', `/api/qr/${r.body.id}`, { key: alice.key });
    assert.equal(got.status, 200);
    assert.deepEqual(Object.keys(got.body).sort(), ['data', 'details', 'error']);
    assert.deepEqual({ ...got.body.details, date: 'x' }, { id: r.body.id, name: 'Stats', link: r.body.link, scans: 0, date: 'x' });
    assert.equal(got.body.data.clicks, 0);
    assert.deepEqual(got.body.data.socialCount, { facebook: 0, twitter: 0, instagram: 0, linkedin: 0 });
  });

  await t.test('update requires data, validates it against the stored type, keeps the alias', async () => {
    const r = await add({ type: 'text', data: 'old' });
    const alias = (await store.get('qrs', r.body.id))!.alias;
    const missing = await call('PUT', `/api/qr/${r.body.id}/update`, { key: alice.key, body: { name: 'n' } });
    assert.deepEqual([missing.status, missing.body.message], [400, 'Missing required parameter: data']);
    const wrong = await call('PUT', `/api/qr/${r.body.id}/update`, { key: alice.key, body: { data: { ssid: 'x' } } });
    assert.equal(wrong.status, 400);
    assert.equal((await store.get('qrs', r.body.id))!.data, 'old');
    const ok = await call('PUT', `/api/qr/${r.body.id}/update`, { key: alice.key, body: { data: 'new', foreground: 'rgb(1,2,3)' } });
    assert.deepEqual(ok.body, { error: 0, message: 'QR has been updated successfully.' });
    const stored = (await store.get('qrs', r.body.id))!;
    assert.deepEqual([stored.data, stored.foreground, stored.alias], ['new', 'rgb(1,2,3)', alias]);
    const retype = await call('PUT', `/api/qr/${r.body.id}/update`, { key: alice.key, body: { type: 'wifi', data: { ssid: 'Cafe' } } });
    assert.equal(retype.status, 200, retype.text);
    assert.equal((await store.get('qrs', r.body.id))!.type, 'wifi');
  });

  await t.test('list entries are {id, link, scans, name, date} under qrs', async () => {
    const r = await call('GET', '/api/qr?limit=1', { key: alice.key });
    assert.deepEqual(Object.keys(r.body.data.qrs[0]).sort(), ['date', 'id', 'link', 'name', 'scans']);
  });
});

test('a made-up QR alias that is taken is made again, without a lookup first; one that stays taken is the row conflict error, nothing stored', async () => {
  // Every alias is made from the bytes this source hands out: `fill` of them, or, queued, exactly those.
  let fill = 1;
  const queued: number[] = [];
  const random = { bytes: (n: number) => new Uint8Array(n).fill(queued.length > 0 ? queued.shift()! : fill) };
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 }, { random });
  const alice = await makeUser('alice');
  const add = () => call('POST', '/api/qr/add', { key: alice.key, body: { type: 'text', data: 'hi' } });

  queued.push(0);
  const first = await add();
  assert.equal(first.status, 200, first.text);
  const taken = (await store.get('qrs', first.body.id))!.alias as string;
  queued.push(0, 2);
  const second = await add();
  assert.equal(second.status, 200, second.text);
  const made = (await store.get('qrs', second.body.id))!.alias as string;
  assert.notEqual(made, taken);
  assert.equal(second.body.link, `http://sho.rt/qr/${made}`);
  assert.equal(queued.length, 0, 'the taken alias was made again exactly once');

  fill = 0; // every try makes the taken alias
  const before = await store.count('qrs');
  const refused = await add();
  assert.deepEqual([refused.status, refused.body.error, refused.body.message], [503, 1, 'Please try again.']);
  assert.equal(await store.count('qrs'), before);
});
