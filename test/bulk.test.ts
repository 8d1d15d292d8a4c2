import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fingerprint, TEST_BACKEND, transactionsOf } from './backend.ts';
import { allOf, openTestStore, ownedBy, testApp } from './helpers.ts';
import { collectionsOf, RESOURCES } from '../src/resources/table.ts';
import type { Store, Tx } from '../src/store/store.ts';
import { recordQueries } from './pg-client.ts';

const ALL = collectionsOf(RESOURCES);

test('POST /api/url/bulk creates links as single creates would, answering per item in order', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  const bulk = (body: unknown, key = alice.key) => call('POST', '/api/url/bulk', { key, body });
  const single = (body: unknown, key = alice.key) => call('POST', '/api/url/add', { key, body });
  const bobCampaign = (await call('POST', '/api/campaign/add', { key: bob.key, body: { name: 'Bob only' } })).body.id as number;

  await t.test('valid items are stored, refused ones answer the message /api/url/add gives, in order', async () => {
    const bad = [
      { url: 'notaurl' },
      { custom: 'no-url-here' },
      { url: 'https://e.com/r', custom: 'api' },
      { url: 'https://e.com/p', expiry: '2020-01-01 00:00:00' },
      { url: 'https://e.com/c', campaign: bobCampaign },
      { url: 'https://e.com/d', domain: 'https://not-mine.example' },
      { url: 'https://e.com/x', pixels: [999] },
    ];
    const expected: string[] = [];
    for (const b of bad) {
      const before = await fingerprint(store, ALL);
      const r = await single(b);
      assert.equal(r.status, 400, r.text);
      assert.equal(await fingerprint(store, ALL), before);
      expected.push(r.body.message);
    }
    const items = [{ url: 'https://example.com/one', custom: 'bulk-one' }, ...bad, 'not an object', { url: 'https://example.com/two', description: 'Two' }];
    const r = await bulk({ urls: items });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.error, 0);
    assert.equal(r.body.succeeded, 2);
    assert.equal(r.body.failed, bad.length + 1);
    assert.equal(r.body.results.length, items.length);
    const [first, ...rest] = r.body.results;
    const last = rest.pop();
    assert.deepEqual(Object.keys(first).sort(), ['error', 'id', 'shorturl']);
    assert.deepEqual(first, { error: 0, id: first.id, shorturl: 'http://sho.rt/bulk-one' });
    assert.deepEqual(rest, [...expected.map((message) => ({ error: 1, message })), { error: 1, message: 'Each item must be a JSON object.' }]);
    const mine = await ownedBy(store, 'links', alice.id);
    assert.deepEqual(mine.map((l) => l.url), ['https://example.com/one', 'https://example.com/two']);
    const two = mine[1]!;
    assert.equal(last.id, two.id);
    assert.equal(last.shorturl, `http://sho.rt/${two.alias}`);
    assert.equal(two.description, 'Two');
    assert.equal(two.userId, alice.id);
    assert.equal(two.status, 'private', 'the single create\'s defaults hold');
  });

  await t.test('a bare JSON array is a list of links too', async () => {
    const r = await bulk([{ url: 'https://example.com/bare-1' }, { url: 'https://example.com/bare-2' }]);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.results.map((x: { error: number }) => x.error), [0, 0]);
    const stored = await Promise.all(r.body.results.map((x: { id: number }) => store.get('links', x.id)));
    assert.deepEqual(stored.map((l) => l?.url), ['https://example.com/bare-1', 'https://example.com/bare-2']);
  });

  await t.test('duplicates inside one batch are handled as sequential creates: the second alias is taken, an equal link is answered again', async () => {
    const existing = await single({ url: 'https://example.com/already' });
    const items = [
      { url: 'https://example.com/a1', custom: 'twice' },
      { url: 'https://example.com/a2', custom: 'twice' },
      { url: 'https://example.com/same' },
      { url: 'https://example.com/same' },
      { url: 'https://example.com/already' },
      { url: 'https://example.com/same', type: 'frame' },
      { url: 'https://example.com/locked', password: 'pw-1' },
      { url: 'https://example.com/locked', password: 'pw-1' },
      { url: 'https://example.com/locked', password: 'pw-2' },
    ];
    const before = await store.count('links');
    const r = await bulk({ urls: items });
    assert.equal(r.status, 200, r.text);
    const res = r.body.results;
    assert.equal(res[0].error, 0);
    assert.deepEqual(res[1], { error: 1, message: 'That alias is taken. Please choose another one.' });
    assert.equal(res[2].error, 0);
    assert.deepEqual(res[3], res[2], 'an equal link earlier in the batch is answered');
    assert.deepEqual(res[4], existing.body, 'an equal link stored before is answered');
    assert.notEqual(res[5].id, res[2].id, 'another type is another link');
    assert.deepEqual(res[7], res[6], 'the same password is the same protected link');
    assert.notEqual(res[8].id, res[6].id);
    assert.equal(await store.count('links'), before + 5);
    assert.equal((await store.lookup('links', 'alias', '0:twice'))?.url, 'https://example.com/a1');
  });

  await t.test('an alias taken before the batch, or reserved, is refused for that item only', async () => {
    await single({ url: 'https://example.com/held', custom: 'held-alias' });
    const r = await bulk({ urls: [{ url: 'https://example.com/h1', custom: 'held-alias' }, { url: 'https://example.com/h2', custom: 'free-alias' }] });
    assert.deepEqual(r.body.results[0], { error: 1, message: 'That alias is taken. Please choose another one.' });
    assert.equal(r.body.results[1].shorturl, 'http://sho.rt/free-alias');
    const other = await bulk({ urls: [{ url: 'https://example.com/b1', custom: 'free-alias' }] }, bob.key);
    assert.deepEqual(other.body.results[0], { error: 1, message: 'That alias is taken. Please choose another one.' }, 'aliases are one namespace for every user');
  });

  await t.test('atomic: one failed item stores nothing, and the answer says which failed', async () => {
    const before = await fingerprint(store, ALL);
    const r = await bulk({ urls: [{ url: 'https://example.com/at-1' }, { url: 'nope' }, { url: 'https://example.com/at-3', custom: 'at-three' }, { url: 'https://example.com/at-4', custom: 'at-three' }], atomic: true });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error, 1);
    assert.equal(r.body.message, 'Nothing was stored: 2 of 4 items failed and the request is atomic.');
    assert.deepEqual(r.body.failed, [1, 3]);
    assert.deepEqual(r.body.results, [
      { error: 1, message: 'Not stored: another item of this atomic batch failed.' },
      { error: 1, message: 'Please enter a valid URL: it must start with http:// or https://.' },
      { error: 1, message: 'Not stored: another item of this atomic batch failed.' },
      { error: 1, message: 'That alias is taken. Please choose another one.' },
    ]);
    assert.equal(await fingerprint(store, ALL), before);
  });

  await t.test('atomic: an item refused before anything is written fails the batch too, an equal link included', async () => {
    await single({ url: 'https://example.com/at-equal' });
    const before = await fingerprint(store, ALL);
    const r = await bulk({ urls: [{ url: 'https://example.com/at-equal' }, { custom: 'no-url' }], atomic: true });
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body.failed, [1]);
    assert.deepEqual(r.body.results, [
      { error: 1, message: 'Not stored: another item of this atomic batch failed.' },
      { error: 1, message: 'Missing required parameter: url' },
    ]);
    assert.equal(await fingerprint(store, ALL), before);
  });

  await t.test('atomic: a batch without failures is stored whole', async () => {
    const r = await bulk({ urls: [{ url: 'https://example.com/ok-1', custom: 'ok-one' }, { url: 'https://example.com/ok-2' }], atomic: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.succeeded, 2);
    assert.equal((await store.lookup('links', 'alias', '0:ok-one'))?.url, 'https://example.com/ok-1');
  });

  const refused: { name: string; body: unknown; status?: number; message: string }[] = [
    { name: 'no urls', body: {}, message: 'Missing required parameter: urls' },
    { name: 'urls not a list', body: { urls: { url: 'https://e.com' } }, message: 'Invalid urls: must be a list.' },
    { name: 'an empty list', body: { urls: [] }, message: 'Invalid urls: the list is empty.' },
    { name: 'atomic not a boolean', body: { urls: [{ url: 'https://e.com/q' }], atomic: 'yes' }, message: 'Invalid atomic: must be true or false.' },
    { name: 'a JSON string', body: 'https://e.com', message: 'The request body must be a JSON object.' },
    { name: '1,001 links', body: { urls: Array.from({ length: 1001 }, (_, i) => ({ url: `https://e.com/${i}` })) }, message: 'Invalid urls: at most 1000 items per request (1001 sent).' },
  ];
  for (const c of refused) {
    await t.test(`refuses ${c.name} with a 400 and stores nothing`, async () => {
      const before = await fingerprint(store, ALL);
      const r = await bulk(c.body);
      assert.equal(r.status, c.status ?? 400, r.text);
      assert.deepEqual(r.body, { error: 1, message: c.message });
      assert.equal(await fingerprint(store, ALL), before);
    });
  }

  await t.test('1,000 links in one request are all stored, in order, with made-up aliases', async () => {
    const before = await store.count('links');
    const urls = Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/many/${i}` }));
    const r = await bulk({ urls });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.succeeded, 1000);
    assert.equal(await store.count('links'), before + 1000);
    const ids = r.body.results.map((x: { id: number }) => x.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'ids follow the order of the items');
    const stored = await store.getMany('links', ids);
    assert.equal(new Set([...stored.values()].map((l) => l.alias)).size, 1000);
    assert.equal(stored.get(ids[999])?.url, 'https://example.com/many/999');
  });

  await t.test('without a key it is a 401, and nothing is stored', async () => {
    const before = await fingerprint(store, ALL);
    const r = await call('POST', '/api/url/bulk', { key: null, body: { urls: [{ url: 'https://e.com/k' }] } });
    assert.equal(r.status, 401);
    assert.equal(await fingerprint(store, ALL), before);
  });
});

test('POST /api/url/bulk/update and /api/url/bulk/delete change links as the single requests do, another user\'s as missing', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  const made = (await call('POST', '/api/url/bulk', { key: alice.key, body: { urls: [1, 2, 3, 4].map((n) => ({ url: `https://example.com/u${n}`, custom: `u-${n}` })) } })).body.results.map((x: { id: number }) => x.id) as number[];
  const bobs = (await call('POST', '/api/url/add', { key: bob.key, body: { url: 'https://example.com/bob', custom: 'bob-link' } })).body.id as number;
  const update = (body: unknown, key = alice.key) => call('POST', '/api/url/bulk/update', { key, body });
  const remove = (body: unknown, key = alice.key) => call('POST', '/api/url/bulk/delete', { key, body });

  await t.test('each item is an id and the single update\'s body; another user\'s id answers as a missing one', async () => {
    const bobBefore = await store.get('links', bobs);
    const r = await update({ urls: [{ id: made[0], url: 'https://example.com/new-0', custom: 'u-new-0' }, { id: bobs, url: 'https://evil.example/' }, { id: 99999, url: 'https://e.com' }, { url: 'https://e.com' }, { id: made[1], url: 'nope' }, { id: String(made[1]), description: 'Second' }] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.results, [
      { error: 0, id: made[0], shorturl: 'http://sho.rt/u-new-0' },
      { error: 1, message: 'Link does not exist.' },
      { error: 1, message: 'Link does not exist.' },
      { error: 1, message: 'Missing required parameter: id' },
      { error: 1, message: 'Please enter a valid URL: it must start with http:// or https://.' },
      { error: 0, id: made[1], shorturl: 'http://sho.rt/u-2' },
    ]);
    assert.deepEqual(await store.get('links', bobs), bobBefore);
    assert.equal((await store.get('links', made[0]!))?.url, 'https://example.com/new-0');
    assert.equal((await store.get('links', made[1]!))?.description, 'Second');
    assert.equal((await store.get('links', made[1]!))?.url, 'https://example.com/u2');
  });

  await t.test('items run in order: an alias one item frees, a later one may take', async () => {
    const r = await update({ urls: [{ id: made[2], custom: 'u-moved' }, { id: made[3], custom: 'u-3' }, { id: made[0], custom: 'u-moved' }] });
    assert.deepEqual(r.body.results.map((x: { error: number }) => x.error), [0, 0, 1]);
    assert.equal(r.body.results[2].message, 'That alias is taken. Please choose another one.');
    assert.equal((await store.get('links', made[3]!))?.alias, 'u-3');
  });

  await t.test('an id named twice: the second item sees what the first one changed', async () => {
    const channel = async (name: string) => (await call('POST', '/api/channel/add', { key: alice.key, body: { name } })).body.id as number;
    const [c1, c2] = [await channel('Bulk one'), await channel('Bulk two')];
    const r = await update({ urls: [{ id: made[3], channel: c1 }, { id: made[3], channel: c2 }] });
    assert.deepEqual(r.body.results.map((x: { error: number }) => x.error), [0, 0], r.text);
    assert.deepEqual((await store.get('links', made[3]!))?.channels, [c1, c2], 'a channel is added to the ones the link has, the first item\'s included');
    const gone = await call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/gone-soon', custom: 'gone-soon' } });
    await remove({ ids: [gone.body.id] });
    const after = await update({ urls: [{ id: gone.body.id, description: 'too late' }] });
    assert.deepEqual(after.body.results, [{ error: 1, message: 'Link does not exist.' }]);
  });

  await t.test('an atomic update with a failed item changes nothing', async () => {
    const before = await fingerprint(store, collectionsOf(RESOURCES));
    const r = await update({ urls: [{ id: made[0], description: 'changed' }, { id: bobs, description: 'mine now' }], atomic: true });
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body.failed, [1]);
    assert.deepEqual(r.body.results, [{ error: 1, message: 'Not stored: another item of this atomic batch failed.' }, { error: 1, message: 'Link does not exist.' }]);
    assert.equal(await fingerprint(store, collectionsOf(RESOURCES)), before);
  });

  await t.test('an atomic delete with a failed item deletes nothing', async () => {
    const before = await fingerprint(store, collectionsOf(RESOURCES));
    const r = await remove({ ids: [made[0], bobs], atomic: true });
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body.failed, [1]);
    assert.equal(await fingerprint(store, collectionsOf(RESOURCES)), before);
  });

  await t.test('delete answers per id; another user\'s and missing ones as missing, and theirs stays', async () => {
    const r = await remove({ ids: [made[0], bobs, 'x', made[0], made[1]] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.results, [
      { error: 0, id: made[0], message: 'Link has been successfully deleted.' },
      { error: 1, message: 'Link does not exist.' },
      { error: 1, message: 'Link does not exist.' },
      { error: 1, message: 'Link does not exist.' },
      { error: 0, id: made[1], message: 'Link has been successfully deleted.' },
    ]);
    assert.deepEqual((await allOf(store, 'links')).map((l) => l.id).sort((a, b) => a - b), [made[2], made[3], bobs].sort((a, b) => a! - b!));
    assert.deepEqual(await remove([made[2]]).then((x) => x.body.succeeded), 1, 'a bare array of ids works too');
  });

  await t.test('refuses a body without ids, storing nothing', async () => {
    const before = await fingerprint(store, collectionsOf(RESOURCES));
    const r = await remove({ urls: [made[3]] });
    assert.deepEqual(r.body, { error: 1, message: 'Missing required parameter: ids' });
    assert.equal(r.status, 400);
    assert.equal(await fingerprint(store, collectionsOf(RESOURCES)), before);
  });
});

/**
 * The store, counting its transactions and what they call (a proxy: every other member is the
 * store's own). Only transactions that write links count: the audit log's flush, a second after
 * an earlier write, may fall inside the request and is not the bulk create's.
 */
function counted(store: Store) {
  const calls = { transactions: 0, insert: 0, insertMany: 0, lookup: 0, lookupAtHand: 0, lookupMany: 0, storeLookups: 0 };
  /** The collections of every lookup outside a transaction, for the failure's message. */
  const storeLookups: string[] = [];
  type Counts = Omit<typeof calls, 'transactions' | 'storeLookups'>;
  const tx = (inner: Tx, mine: Counts & { links: boolean }): Tx =>
    new Proxy(inner, {
      get: (target, name) => {
        const value = Reflect.get(target, name, target) as unknown;
        if (typeof value !== 'function') return value;
        if (typeof name === 'string' && name in mine && name !== 'links') mine[name as keyof Counts]++;
        const bound = (value as (...a: unknown[]) => unknown).bind(target);
        return name === 'insert' || name === 'insertMany' ? (...a: unknown[]) => ((mine.links ||= a[0] === 'links'), bound(...a)) : bound;
      },
    });
  const wrapped = new Proxy(store, {
    get: (target, name) => {
      if (name === 'transaction') {
        return async <R>(fn: (t: Tx) => Promise<R>) => {
          const mine = { insert: 0, insertMany: 0, lookup: 0, lookupAtHand: 0, lookupMany: 0, links: false };
          const result = await target.transaction((inner) => fn(tx(inner, mine)));
          if (mine.links) {
            calls.transactions++;
            for (const k of ['insert', 'insertMany', 'lookup', 'lookupAtHand', 'lookupMany'] as const) calls[k] += mine[k];
          }
          return result;
        };
      }
      const value = Reflect.get(target, name, target) as unknown;
      if (name === 'lookup' || name === 'lookupMany') {
        // Only the links' reads: a background task of the server (a cache refill, the audit log) may read another collection meanwhile.
        return (...a: unknown[]) => {
          storeLookups.push(String(a[0]));
          if (a[0] === 'links') calls.storeLookups++;
          return (value as (...a: unknown[]) => unknown).apply(target, a);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: wrapped, calls, storeLookups };
}

test('a bulk create of 1,000 links is one transaction, one insertMany, and (on PostgreSQL) a few reads', async () => {
  const raw = await openTestStore();
  const { store, calls, storeLookups } = counted(raw);
  const { call, makeUser } = await testApp({ rateLimit: 1000 }, { store });
  const alice = await makeUser('alice');
  await call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/before' } });
  Object.keys(calls).forEach((k) => (calls[k as keyof typeof calls] = 0));
  storeLookups.length = 0;
  const urls = Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/one-tx/${i}`, ...(i % 2 ? { custom: `one-tx-${i}` } : {}) }));
  const r = await call('POST', '/api/url/bulk', { key: alice.key, body: { urls } });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.succeeded, 1000);
  assert.equal(calls.transactions, 1);
  assert.equal(calls.insertMany, 1);
  assert.equal(calls.insert, 0);
  if (TEST_BACKEND === 'postgres') {
    // The duplicate check (outside) and the alias checks (inside) are one read per index each, not one per link.
    assert.ok(calls.storeLookups <= 2, `store lookups of links: ${calls.storeLookups} (all: ${storeLookups.join(', ')})`);
    assert.ok(calls.lookupMany <= 4 && calls.lookup === 0, `transaction lookups: ${calls.lookup} single, ${calls.lookupMany} batched`);
  } else {
    // The file store answers reads from memory, each item's own and at hand (batching them would cost more than it saves).
    assert.equal(calls.lookupMany, 0, 'no batched reads on the file store');
    assert.ok(calls.lookup + calls.lookupAtHand >= 1000, `transaction lookups: ${calls.lookup} + ${calls.lookupAtHand} at hand`);
  }
  if (TEST_BACKEND === 'postgres') {
    const ids = r.body.results.map((x: { id: number }) => x.id);
    assert.equal(await transactionsOf(raw, 'links', ids), 1, 'every row was written by one PostgreSQL transaction');
  }
});

test('a bulk create on PostgreSQL inserts its links in one statement and their events in one, their data as one JSON array', { skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL only' }, async () => {
  const { call, makeUser, store } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const { sent, restore } = recordQueries();
  let r;
  try {
    const urls = Array.from({ length: 200 }, (_, i) => ({ url: `https://example.com/statements/${i}` }));
    r = await call('POST', '/api/url/bulk', { key: alice.key, body: { urls } });
  } finally {
    restore();
  }
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.succeeded, 200);
  // The events' INSERT comes after the WITH that takes the transaction's xid (pg-outbox.ts).
  const inserts = (table: string) => sent.filter((q) => /^(?:WITH [\s\S]*?\)\s*)?INSERT INTO "(\w+)"/.exec(q.text.trimStart())?.[1] === table);
  assert.equal(inserts('links').length, 1, 'one INSERT for every link');
  assert.doesNotMatch(inserts('links')[0]!.text, /ON CONFLICT/, 'a plain insert: no probe of the unique indexes before each row');
  const events = inserts('events');
  assert.equal(events.length, 1, 'one INSERT for every link\'s event');
  const data = events[0]!.values[1];
  assert.equal(typeof data, 'string');
  assert.equal((JSON.parse(data as string) as unknown[]).length, 200);
  assert.equal((await allOf(store, 'events')).filter((e) => e.type === 'link.created').length, 200);
});

test('bulk requests: their own body limit, one request on the rate limit', async (t) => {
  await t.test('a body over BODY_LIMIT passes up to BULK_BODY_LIMIT, and past it is a 413 storing nothing', async () => {
    const { call, store } = await testApp({ rateLimit: 1000, bodyLimit: 2000, bulkBodyLimit: 40_000 });
    const urls = Array.from({ length: 100 }, (_, i) => ({ url: `https://example.com/limit/${i}` }));
    const r = await call('POST', '/api/url/bulk', { body: { urls } });
    assert.equal(r.status, 200, r.text);
    assert.equal(await store.count('links'), 100);
    const single = await call('POST', '/api/url/add', { body: { url: `https://example.com/${'x'.repeat(2000)}` } });
    assert.equal(single.status, 413, 'other routes keep BODY_LIMIT');
    const big = await call('POST', '/api/url/bulk', { body: { urls: Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/too-big/${i}` })) } });
    assert.equal(big.status, 413, big.text);
    assert.equal(big.body.message, 'The request body is larger than 40000 bytes (BULK_BODY_LIMIT).');
    assert.equal(await store.count('links'), 100);
  });

  await t.test('a bulk request counts as one request against RATE_LIMIT', async () => {
    const { call, store } = await testApp({ rateLimit: 2 });
    const r = await call('POST', '/api/url/bulk', { body: { urls: Array.from({ length: 50 }, (_, i) => ({ url: `https://example.com/rl/${i}` })) } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('x-ratelimit-remaining'), '1');
    assert.equal((await call('GET', '/api/urls')).status, 200);
    const over = await call('POST', '/api/url/bulk', { body: { urls: [{ url: 'https://example.com/rl/over' }] } });
    assert.equal(over.status, 429);
    assert.equal(await store.count('links'), 50);
  });
});
