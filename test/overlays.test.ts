import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

test('CTA overlays', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const add = (body: unknown) => call('POST', '/api/overlay/add', { key: alice.key, body });

  await t.test('add applies the defaults; get answers every field; the list is {id, type, name, date} under cta', async () => {
    const r = await add({ type: 'contact', name: 'Reach us', email: 'me@example.com' });
    assert.deepEqual(r.body, { error: 0, id: r.body.id });
    const details = {
      id: r.body.id, type: 'contact', name: 'Reach us', message: '', buttontext: '', buttonlink: '',
      textcolor: '#000000', bgcolor: '#FFFFFF', buttoncolor: '#000000', position: 'bottom-left',
      fields: ['name', 'email', 'message'], email: 'me@example.com', date: '2026-11-21 10:00:00',
    };
    assert.deepEqual({ ...(await store.get('overlays', r.body.id))! }, { ...details, userId: alice.id });
    assert.deepEqual((await call('GET', `/api/overlay/${r.body.id}`, { key: alice.key })).body, { error: 0, data: details });
    const list = await call('GET', '/api/overlay', { key: alice.key });
    assert.deepEqual(list.body.data.cta, [{ id: r.body.id, type: 'contact', name: 'Reach us', date: '2026-11-21 10:00:00' }]);
  });

  const rejected: [string, unknown, string | RegExp][] = [
    ['an unknown type', { type: 'popup', name: 'X' }, 'Invalid type: must be one of message, contact.'],
    ['a missing name', { type: 'message' }, 'Missing required parameter: name'],
    ['an unknown position', { type: 'message', name: 'X', position: 'middle' }, /Invalid position/],
    ['a colour name', { type: 'message', name: 'X', bgcolor: 'red' }, 'Colours must be HEX strings of the form #RRGGBB.'],
    ['a javascript: button link', { type: 'message', name: 'X', buttonlink: 'javascript:alert(1)' }, 'Button link must start with http:// or https:// (or be empty).'],
    ['a button link with a line break', { type: 'message', name: 'X', buttonlink: 'https://shop.example.com/\r\nx' }, 'Button link must be a valid http(s) URL or empty.'],
    ['an unknown contact field', { type: 'contact', name: 'X', fields: ['name', 'age'] }, /Invalid fields: each must be one of/],
    ['a repeated contact field', { type: 'contact', name: 'X', fields: ['email', 'email'] }, 'Invalid fields: each field may appear only once.'],
    ['no contact fields', { type: 'contact', name: 'X', fields: [] }, 'A contact overlay must ask for at least one field.'],
    ['a bad email', { type: 'contact', name: 'X', email: 'nobody' }, 'Please enter a valid email.'],
    ['a message over 1000 characters', { type: 'message', name: 'X', message: 'm'.repeat(1001) }, /at most 1000/],
  ];
  for (const [name, body, message] of rejected) {
    await t.test(`add refuses ${name} with a 400 and stores nothing`, async () => {
      const before = await snapshotOf(store, 'overlays');
      const r = await add(body);
      assert.equal(r.status, 400, r.text);
      if (typeof message === 'string') assert.equal(r.body.message, message);
      else assert.match(r.body.message, message);
      assert.equal(await snapshotOf(store, 'overlays'), before);
    });
  }

  await t.test('update changes only the given fields', async () => {
    const id = (await add({ type: 'message', name: 'Sale', message: 'Half price', buttonlink: 'https://shop.example.com' })).body.id;
    const r = await call('PUT', `/api/overlay/${id}/update`, { key: alice.key, body: { position: 'center', buttontext: 'Shop' } });
    assert.deepEqual([r.status, r.body], [200, { error: 0, message: 'Overlay has been updated successfully.' }]);
    const stored = (await store.get('overlays', id))!;
    assert.deepEqual([stored.message, stored.buttonlink, stored.position, stored.buttontext], ['Half price', 'https://shop.example.com', 'center', 'Shop'], 'the button link is stored as it was sent');
  });
});

test('a contact overlay asks for each field under a capitalised label, with the input a phone needs: a textarea for the message', async () => {
  const { call, store } = await testApp({ rateLimit: 1000 });
  const overlay = await call('POST', '/api/overlay/add', { body: { type: 'contact', name: 'C', fields: ['name', 'email', 'phone', 'message'], email: 'sales@example.com' } });
  assert.equal((await call('POST', '/api/url/add', { body: { url: 'https://example.com/', custom: 'contact', type: `overlay-${overlay.body.id}` } })).status, 200);
  const page = await call('GET', '/contact', { key: null });
  assert.equal(page.status, 200);
  const form = /<form method="post" action="mailto:sales@example\.com" enctype="text\/plain">([\s\S]*?)<\/form>/.exec(page.text)?.[1];
  assert.equal(
    form,
    '<label>Name<input name="name" autocomplete="name"></label><label>Email<input type="email" name="email" autocomplete="email"></label>' +
      '<label>Phone<input type="tel" name="phone" autocomplete="tel"></label><label>Message<textarea name="message" rows="4"></textarea></label><button type="submit">Send</button>',
  );
  // Inputs of a column form must not grow along it (flex: 1 1 12em of the page's rows made them 12em tall).
  assert.match(page.text, /\.cta input,\.cta textarea\{flex:none;/);
  // A field an import stored that the API would refuse: a text input, its label escaped.
  await store.transaction((tx) => tx.update('overlays', overlay.body.id, { fields: ['<b>fax</b>'] }));
  const odd = await call('GET', '/contact', { key: null });
  assert.match(odd.text, /<label>&lt;b&gt;fax&lt;\/b&gt;<input name="&lt;b&gt;fax&lt;\/b&gt;"><\/label>/);
});

test('splash pages', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const add = (body: unknown) => call('POST', '/api/splash/add', { key: alice.key, body });

  await t.test('add applies the defaults (5 s countdown); get answers every field; list is {id, name, date}', async () => {
    const r = await add({ name: 'Welcome', image: 'https://cdn.example.com/b.png' });
    assert.deepEqual(r.body, { error: 0, id: r.body.id });
    const details = { id: r.body.id, name: 'Welcome', title: '', text: '', image: 'https://cdn.example.com/b.png', countdown: 5, date: '2026-11-21 10:00:00' };
    assert.deepEqual({ ...(await store.get('splash', r.body.id))! }, { ...details, userId: alice.id });
    assert.deepEqual((await call('GET', `/api/splash/${r.body.id}`, { key: alice.key })).body, { error: 0, data: details });
    const list = await call('GET', '/api/splash', { key: alice.key });
    assert.deepEqual(list.body.data.splash, [{ id: r.body.id, name: 'Welcome', date: '2026-11-21 10:00:00' }]);
  });

  await t.test('countdown 0 and 60 are accepted', async () => {
    for (const countdown of [0, 60]) {
      const r = await add({ name: `Edge ${countdown}`, countdown });
      assert.equal((await store.get('splash', r.body.id))!.countdown, countdown);
    }
  });

  const COUNTDOWN = 'Countdown must be a whole number of seconds from 0 to 60.';
  const rejected: [string, unknown, string | RegExp][] = [
    ['a negative countdown', { name: 'X', countdown: -1 }, COUNTDOWN],
    ['a countdown over 60', { name: 'X', countdown: 61 }, COUNTDOWN],
    ['a fractional countdown', { name: 'X', countdown: 2.5 }, COUNTDOWN],
    ['a countdown as a string', { name: 'X', countdown: '5' }, /countdown/],
    ['a data: image', { name: 'X', image: 'data:image/png;base64,AAAA' }, 'Splash page image must start with http:// or https:// (or be empty).'],
    ['an empty name', { name: '  ' }, 'Splash page name cannot be empty.'],
  ];
  for (const [name, body, message] of rejected) {
    await t.test(`add refuses ${name} with a 400 and stores nothing`, async () => {
      const before = await snapshotOf(store, 'splash');
      const r = await add(body);
      assert.equal(r.status, 400, r.text);
      if (typeof message === 'string') assert.equal(r.body.message, message);
      else assert.match(r.body.message, message);
      assert.equal(await snapshotOf(store, 'splash'), before);
    });
  }
});
