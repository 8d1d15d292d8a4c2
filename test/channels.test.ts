import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

const ALREADY = 'This item is already added to the selected channel.';
const ADDED = { error: 0, message: 'Item successfully added to the channel.' };

test('channels', async (t) => {
  const { call, store, clock, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  const add = (body: unknown, key = alice.key) => call('POST', '/api/channel/add', { key, body });
  const assign = (channel: number | string, type: string, item: number | string, key = alice.key) =>
    call('POST', `/api/channel/${channel}/assign/${type}/${item}`, { key });
  const items = (channel: number | string, query = '', key = alice.key) => call('GET', `/api/channel/${channel}${query}`, { key });
  let n = 0;
  const addLink = async (key = alice.key, title?: string) =>
    (await call('POST', '/api/url/add', { key, body: { url: `https://example.com/i/${++n}`, custom: `item-${n}`, ...(title ? { metatitle: title } : {}) } })).body.id as number;
  const addQr = async (key = alice.key) => (await call('POST', '/api/qr/add', { key, body: { type: 'text', data: 'hi', name: `QR ${++n}` } })).body.id as number;
  const addBio = async (key = alice.key) => (await call('POST', '/api/bio/add', { key, body: { name: `Bio ${++n}`, alias: `bio-${n}` } })).body.id as number;
  const all = async () => (await Promise.all(['channels', 'links', 'qrs', 'bios'].map((c) => snapshotOf(store, c)))).join();

  await t.test('add answers id, name, description, color and starred, with defaults', async () => {
    const full = await add({ name: 'Work', description: 'Office links', color: '#A1B2C3', starred: true });
    assert.deepEqual(full.body, { error: 0, id: full.body.id, name: 'Work', description: 'Office links', color: '#A1B2C3', starred: true });
    const bare = await add({ name: 'Home' });
    assert.deepEqual(bare.body, { error: 0, id: bare.body.id, name: 'Home', description: '', color: '#000000', starred: false });
    assert.deepEqual({ ...(await store.get('channels', bare.body.id))! }, { id: bare.body.id, userId: alice.id, date: '2026-11-21 10:00:00', name: 'Home', description: '', color: '#000000', starred: false });
  });

  const rejected: { name: string; body: unknown; message: string | RegExp }[] = [
    { name: 'a missing name', body: { color: '#000000' }, message: 'Missing required parameter: name' },
    { name: 'a one-character name', body: { name: 'x' }, message: 'Channel name cannot be empty and must have at least 2 characters.' },
    { name: 'a name the user has, in another case', body: { name: 'WORK' }, message: 'You already have a channel with this name.' },
    { name: 'a colour without #', body: { name: 'Red', color: 'FF0000' }, message: 'Colours must be HEX strings of the form #RRGGBB.' },
    { name: 'a short colour', body: { name: 'Red', color: '#F00' }, message: 'Colours must be HEX strings of the form #RRGGBB.' },
    { name: 'a description over 500 characters', body: { name: 'Long', description: 'd'.repeat(501) }, message: /at most 500/ },
    { name: 'starred as a number', body: { name: 'Star', starred: 1 }, message: /starred/ },
  ];
  for (const c of rejected) {
    await t.test(`add refuses ${c.name} with a 400 and stores nothing`, async () => {
      const before = await snapshotOf(store, 'channels');
      const r = await add(c.body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error, 1);
      if (typeof c.message === 'string') assert.equal(r.body.message, c.message);
      else assert.match(r.body.message, c.message);
      assert.equal(await snapshotOf(store, 'channels'), before);
    });
  }

  await t.test('update changes only what it is given and refuses a name the user has', async () => {
    const id = (await add({ name: 'Travel', color: '#111111' })).body.id;
    const r = await call('PUT', `/api/channel/${id}/update`, { key: alice.key, body: { starred: true, description: 'Trips' } });
    assert.deepEqual([r.status, r.body], [200, { error: 0, message: 'Channel has been updated successfully.' }]);
    const stored = (await store.get('channels', id))!;
    assert.deepEqual([stored.name, stored.color, stored.starred, stored.description], ['Travel', '#111111', true, 'Trips']);
    const before = await snapshotOf(store, 'channels');
    const dup = await call('PUT', `/api/channel/${id}/update`, { key: alice.key, body: { name: 'home' } });
    assert.deepEqual([dup.status, dup.body], [400, { error: 1, message: 'You already have a channel with this name.' }]);
    assert.equal(await snapshotOf(store, 'channels'), before);
    assert.equal((await add({ name: 'Travel' }, bob.key)).status, 200);
  });

  await t.test('assign adds links, bio pages and QR codes; the channel lists them newest first', async () => {
    const ch = (await add({ name: 'Mixed' })).body.id;
    const link = await addLink(alice.key, 'My title');
    clock.advance(86_400_000);
    const qr = await addQr();
    clock.advance(86_400_000);
    const bio = await addBio();
    for (const [type, id] of [['links', link], ['qr', qr], ['bio', bio]] as const) {
      const r = await assign(ch, type, id);
      assert.deepEqual([r.status, r.body], [200, ADDED], type);
    }
    assert.deepEqual((await store.get('links', link))!.channels, [ch]);
    assert.deepEqual((await store.get('qrs', qr))!.channels, [ch]);
    assert.deepEqual((await store.get('bios', bio))!.channels, [ch]);
    const r = await items(ch);
    assert.equal(r.status, 200, r.text);
    const qrAlias = (await store.get('qrs', qr))!.alias;
    const bioAlias = (await store.get('bios', bio))!.alias;
    assert.deepEqual(r.body, {
      error: '0',
      data: {
        result: 3, perpage: 15, currentpage: 1, nextpage: null, maxpage: 1,
        items: [
          { type: 'bio', id: bio, title: (await store.get('bios', bio))!.name, preview: `http://sho.rt/u/${bioAlias}`, link: `http://sho.rt/u/${bioAlias}`, date: '2026-11-23' },
          { type: 'qr', id: qr, title: (await store.get('qrs', qr))!.name, preview: `http://sho.rt/qr/${qrAlias}`, link: `http://sho.rt/qr/${qrAlias}`, date: '2026-11-22' },
          { type: 'links', id: link, title: 'My title', preview: (await store.get('links', link))!.url, link: `http://sho.rt/${(await store.get('links', link))!.alias}`, date: '2026-11-21' },
        ],
      },
    });
    const page = await items(ch, '?limit=2&page=2');
    assert.deepEqual([page.body.data.result, page.body.data.maxpage, page.body.data.items.map((i: { id: number }) => i.id)], [3, 2, [link]]);
    const fallback = await items(ch, '?limit=0');
    assert.deepEqual([fallback.status, fallback.body.data.perpage], [200, 15], 'a bad limit is the default');
  });

  await t.test("a link's title falls back to its URL; an item may be in several channels", async () => {
    const a = (await add({ name: 'Alpha' })).body.id;
    const b = (await add({ name: 'Beta' })).body.id;
    const link = await addLink();
    assert.deepEqual((await assign(a, 'links', link)).body, ADDED);
    assert.deepEqual((await assign(b, 'links', link)).body, ADDED);
    assert.deepEqual((await store.get('links', link))!.channels, [a, b]);
    const listed = (await items(b)).body.data.items;
    assert.deepEqual(listed.map((i: { id: number; title: string }) => [i.id, i.title]), [[link, (await store.get('links', link))!.url]]);
  });

  await t.test('assigning twice, an unknown type, and unknown or foreign items and channels are refused, storing nothing', async () => {
    const ch = (await add({ name: 'Strict' })).body.id;
    const theirChannel = (await add({ name: 'Strict' }, bob.key)).body.id;
    const link = await addLink();
    await assign(ch, 'links', link);
    const theirLink = await addLink(bob.key);
    const theirQr = await addQr(bob.key);
    const theirBio = await addBio(bob.key);
    const before = await all();
    const cases: [number | string, string, number | string, number, string][] = [
      [ch, 'links', link, 400, ALREADY],
      [ch, 'pages', link, 400, 'Invalid type: must be one of links, bio, qr.'],
      [ch, 'constructor', link, 400, 'Invalid type: must be one of links, bio, qr.'],
      [999999, 'links', link, 404, 'Channel does not exist.'],
      [theirChannel, 'links', link, 404, 'Channel does not exist.'],
      [ch, 'links', 999999, 404, 'Link does not exist. Please try again.'],
      [ch, 'links', theirLink, 404, 'Link does not exist. Please try again.'],
      [ch, 'qr', theirQr, 404, 'QR Code does not exist. Please try again.'],
      [ch, 'qr', 'x', 404, 'QR Code does not exist. Please try again.'],
      [ch, 'bio', theirBio, 404, 'Bio Page does not exist. Please try again.'],
      [ch, 'bio', 999999, 404, 'Bio Page does not exist. Please try again.'],
    ];
    for (const [channel, type, item, status, message] of cases) {
      const r = await assign(channel, type, item);
      assert.deepEqual([r.status, r.body], [status, { error: 1, message }], `${channel}/${type}/${item}`);
    }
    assert.equal(await all(), before);
  });

  await t.test("another user's channel lists as a 404, like a missing one", async () => {
    const theirs = (await add({ name: 'Hidden' }, bob.key)).body.id;
    for (const id of [theirs, 999999, 'abc']) {
      const r = await items(id);
      assert.deepEqual([r.status, r.body], [404, { error: 1, message: 'Channel does not exist.' }], String(id));
    }
    assert.equal((await items(theirs, '', bob.key)).status, 200);
  });

  await t.test('deleting a channel unassigns every item, which remain, and keeps their other channels', async () => {
    const doomed = (await add({ name: 'Doomed' })).body.id;
    const kept = (await add({ name: 'Kept' })).body.id;
    const link = await addLink();
    const qr = await addQr();
    const bio = await addBio();
    for (const [type, id] of [['links', link], ['qr', qr], ['bio', bio]] as const) await assign(doomed, type, id);
    await assign(kept, 'links', link);
    const r = await call('DELETE', `/api/channel/${doomed}/delete`, { key: alice.key });
    assert.deepEqual([r.status, r.body], [200, { error: 0, message: 'Channel has been deleted successfully.' }]);
    assert.equal((await store.get('channels', doomed)), undefined);
    assert.deepEqual((await store.get('links', link))!.channels, [kept]);
    assert.deepEqual((await store.get('qrs', qr))!.channels, []);
    assert.deepEqual((await store.get('bios', bio))!.channels, []);
    assert.equal((await items(doomed)).status, 404);
  });

  await t.test('a deleted item leaves the channel listing', async () => {
    const ch = (await add({ name: 'Fleeting' })).body.id;
    const link = await addLink();
    await assign(ch, 'links', link);
    assert.equal((await call('DELETE', `/api/url/${link}/delete`, { key: alice.key })).status, 200);
    assert.deepEqual((await items(ch)).body.data.items, []);
  });
});

test('concurrent assignments of one item to several channels keep every one (PostgreSQL locks the item; the file store queues)', async () => {
  const { call, store, makeUser } = await testApp({ rateLimit: 100_000 });
  const alice = await makeUser('racer');
  const channelIds: number[] = [];
  for (let i = 0; i < 6; i++) channelIds.push((await call('POST', '/api/channel/add', { key: alice.key, body: { name: `Race ${i}` } })).body.id);
  for (let round = 0; round < 4; round++) {
    const made = await call('POST', '/api/url/add', { key: alice.key, body: { url: `https://example.com/race/${round}`, custom: `race-${round}` } });
    assert.equal(made.status, 200, made.text);
    const answers = await Promise.all(channelIds.map((c) => call('POST', `/api/channel/${c}/assign/links/${made.body.id}`, { key: alice.key })));
    assert.deepEqual(answers.map((r) => r.status), channelIds.map(() => 200));
    const stored = (await store.get<{ id: number; channels: number[] }>('links', made.body.id))!;
    assert.deepEqual([...stored.channels].sort((a, b) => a - b), channelIds, `round ${round}: every assignment kept`);
  }
});
