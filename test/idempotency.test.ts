import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fingerprint, secondStoreOf } from './backend.ts';
import { ADMIN_KEY, allOf, eventually, openTestStore, testApp } from './helpers.ts';
import { collectionsOf, RESOURCES } from '../src/resources/table.ts';
import { ABANDONED_MS, IDEMPOTENCY_COLLECTION, KEEP_MS, LOST_AFTER_MS, holdsSecret } from '../src/idempotency/keys.ts';
import { StoreUnavailableError } from '../src/store/store.ts';
import { runExportAll } from '../src/cli/move-data.ts';
import type { Store, Tx } from '../src/store/store.ts';

const ALL = [...collectionsOf(RESOURCES), IDEMPOTENCY_COLLECTION];
const KEY = 'Idempotency-Key';

test('Idempotency-Key on a POST of the link API answers the first answer again, per key and user', async (t) => {
  const { call, store, clock, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  const post = (path: string, body: unknown, key: string | undefined, user = alice.key) => call('POST', path, { key: user, body, headers: key === undefined ? {} : { [KEY]: key } });

  await t.test('the same key and request: the same status and body, marked replayed, and one link stored', async () => {
    const first = await post('/api/url/add', { url: 'https://example.com/idem-1', custom: 'idem-one' }, 'key-1');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const before = await fingerprint(store, ALL);
    const again = await post('/api/url/add', { url: 'https://example.com/idem-1', custom: 'idem-one' }, 'key-1');
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(await fingerprint(store, ALL), before, 'the replay stored nothing');
    // Without the key the same request is a second create: the alias is taken.
    const without = await post('/api/url/add', { url: 'https://example.com/idem-1', custom: 'idem-one' }, undefined);
    assert.deepEqual([without.status, without.body.message], [400, 'That alias is taken. Please choose another one.']);
  });

  await t.test('a bulk request and a QR code are POSTs of the link API too', async () => {
    const body = { urls: [{ url: 'https://example.com/idem-b1' }, { url: 'https://example.com/idem-b2', custom: 'idem-b2' }] };
    const first = await post('/api/url/bulk', body, 'bulk-key');
    const links = await store.count('links');
    const again = await post('/api/url/bulk', body, 'bulk-key');
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(await store.count('links'), links);
    const qr = { type: 'text', data: 'Hello', name: 'Idem QR' };
    const q1 = await post('/api/qr/add', qr, 'qr-key');
    const qrs = await store.count('qrs');
    const q2 = await post('/api/qr/add', qr, 'qr-key');
    assert.equal(q2.text, q1.text);
    assert.equal(await store.count('qrs'), qrs);
  });

  await t.test('an error answer is given again as it was, and stores nothing', async () => {
    const first = await post('/api/url/add', { url: 'not a url' }, 'bad-key');
    assert.equal(first.status, 400);
    const before = await fingerprint(store, ALL);
    const again = await post('/api/url/add', { url: 'not a url' }, 'bad-key');
    assert.deepEqual([again.status, again.text, again.headers.get('idempotent-replayed')], [400, first.text, 'true']);
    assert.equal(await fingerprint(store, ALL), before);
  });

  await t.test('the same key with another body or path is a 422, and runs nothing', async () => {
    await post('/api/url/add', { url: 'https://example.com/idem-2' }, 'key-2');
    const before = await fingerprint(store, ALL);
    const otherBody = await post('/api/url/add', { url: 'https://example.com/idem-2-other' }, 'key-2');
    assert.equal(otherBody.status, 422, otherBody.text);
    assert.match(otherBody.body.message, /used with another request/);
    assert.equal(otherBody.body.error, 1);
    const otherPath = await post('/api/qr/add', { type: 'text', data: 'x', name: 'x' }, 'key-2');
    assert.equal(otherPath.status, 422);
    assert.equal(await fingerprint(store, ALL), before);
  });

  await t.test('keys are per user: another user\'s same key runs its own request', async () => {
    const mine = await post('/api/url/add', { url: 'https://example.com/idem-3' }, 'shared-key');
    const theirs = await post('/api/url/add', { url: 'https://example.com/idem-3' }, 'shared-key', bob.key);
    assert.equal(theirs.status, 200);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    assert.notEqual(theirs.body.id, mine.body.id);
    assert.equal((await store.get('links', theirs.body.id))?.userId, bob.id);
  });

  const invalid = [
    { name: 'an empty key', key: '' },
    { name: 'a key of 256 characters', key: 'k'.repeat(256) },
    { name: 'a key with a tab', key: 'a\tb' },
  ];
  for (const c of invalid) {
    await t.test(`${c.name} is a 400 that stores nothing`, async () => {
      const before = await fingerprint(store, ALL);
      const r = await post('/api/url/add', { url: 'https://example.com/idem-invalid' }, c.key);
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.body, { error: 1, message: 'Invalid Idempotency-Key: use 1 to 255 printable ASCII characters (a UUID, say).' });
      assert.equal(await fingerprint(store, ALL), before);
    });
  }

  await t.test('a key of 255 characters is taken', async () => {
    const r = await post('/api/url/add', { url: 'https://example.com/idem-long' }, 'k'.repeat(255));
    assert.equal(r.status, 200, r.text);
  });

  await t.test('after 24 hours a key is forgotten: the request runs again, and expired keys are pruned', async () => {
    const first = await post('/api/url/add', { url: 'https://example.com/idem-day', custom: 'idem-day' }, 'day-key');
    assert.equal(first.status, 200);
    clock.advance(KEEP_MS - 1000);
    assert.equal((await post('/api/url/add', { url: 'https://example.com/idem-day', custom: 'idem-day' }, 'day-key')).headers.get('idempotent-replayed'), 'true');
    clock.advance(2000);
    const later = await post('/api/url/add', { url: 'https://example.com/idem-day', custom: 'idem-day' }, 'day-key');
    assert.equal(later.headers.get('idempotent-replayed'), null);
    assert.deepEqual([later.status, later.body.message], [400, 'That alias is taken. Please choose another one.'], 'it ran again');
    // Every key but that one (made again just now) is older than a day: pruned on the next request.
    clock.advance(11 * 60 * 1000);
    await post('/api/url/add', { url: 'https://example.com/idem-prune' }, 'prune-key');
    assert.ok(await eventually(async () => (await allOf(store, IDEMPOTENCY_COLLECTION)).length === 2), 'expired keys are removed');
    assert.deepEqual((await allOf(store, IDEMPOTENCY_COLLECTION)).map((r) => r.key).sort(), ['day-key', 'prune-key']);
  });

  await t.test('export --all leaves the keys out: they answer a day of retries, not data to move', async () => {
    assert.ok((await allOf(store, IDEMPOTENCY_COLLECTION)).length > 0);
    let text = '';
    await runExportAll(store, {}, () => {}, { positionals: [], write: (chunk) => void (text += chunk), stderr: { write: () => {} } });
    const exported = JSON.parse(text) as Record<string, unknown> & { $export: { counts: Record<string, number> } };
    assert.ok(Array.isArray(exported.links) && exported.links.length > 0);
    assert.equal(exported[IDEMPOTENCY_COLLECTION], undefined);
    assert.equal(exported.$export.counts[IDEMPOTENCY_COLLECTION], undefined);
    assert.doesNotMatch(text, /key-1|Idempotent/);
  });

  await t.test('an answer holding a new API key is never kept: those routes run again, and the key is in no idempotency record', async () => {
    const dave = await makeUser('dave');
    const before = (await allOf(store, IDEMPOTENCY_COLLECTION)).length;
    const calls: [string, unknown, string][] = [
      ['/api/keys', { name: 'ci', scopes: ['links:read'] }, dave.key],
      ['/api/account/rotate-key', {}, dave.key],
      ['/api/user/add', { username: 'eve', email: 'eve@example.com', password: 'secret-pw-1' }, ADMIN_KEY],
      ['/api/user/create', { username: 'fay', email: 'fay@example.com', password: 'secret-pw-1' }, ADMIN_KEY],
      [`/api/user/${dave.id}/rotate-key`, {}, ADMIN_KEY],
    ];
    const secrets: string[] = [];
    for (const [path, body, key] of calls) {
      const r = await post(path, body, 'secret-key', key);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      const apikey = r.body.apikey ?? r.body.data?.apikey;
      assert.match(apikey, /^sk_/, path);
      secrets.push(apikey);
      assert.equal(r.headers.get('idempotent-replayed'), null);
    }
    // Run again with the same key: each is a request of its own (a rotation with the key just made).
    const again = await post('/api/account/rotate-key', {}, 'secret-key', secrets[4]);
    assert.equal(again.status, 200, again.text);
    assert.notEqual(again.body.apikey, secrets[4]);
    const kept = await allOf(store, IDEMPOTENCY_COLLECTION);
    assert.equal(kept.length, before);
    for (const secret of [...secrets, again.body.apikey]) assert.ok(!JSON.stringify(kept).includes(secret));
  });

  await t.test('deleting a user deletes its keys', async () => {
    const carol = await makeUser('carol');
    await post('/api/url/add', { url: 'https://example.com/idem-carol' }, 'carol-key', carol.key);
    assert.equal((await allOf(store, IDEMPOTENCY_COLLECTION)).filter((r) => r.userId === carol.id).length, 1);
    assert.equal((await call('DELETE', `/api/user/${carol.id}/delete`)).status, 200);
    assert.equal((await allOf(store, IDEMPOTENCY_COLLECTION)).filter((r) => r.userId === carol.id).length, 0);
  });
});

test('Idempotency-Key: a request still running is a 409; one cut off long ago, or failed on the server, runs again', async (t) => {
  await t.test('two requests at once with one key: one runs, the other is a 409 with Retry-After, on two servers of one store', async () => {
    const first = await testApp({ rateLimit: 1000 });
    const second = await testApp({ rateLimit: 1000 }, { store: await secondStoreOf(first.store) });
    const alice = await first.makeUser('alice');
    const body = { urls: Array.from({ length: 200 }, (_, i) => ({ url: `https://example.com/race/${i}` })) };
    const send = (app: typeof first) => app.call('POST', '/api/url/bulk', { key: alice.key, body, headers: { [KEY]: 'race-key' } });
    const answers = await Promise.all([send(first), send(second)]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], answers.map((a) => a.text).join('\n'));
    const busy = answers.find((a) => a.status === 409)!;
    assert.equal(busy.headers.get('retry-after'), '1');
    assert.match(busy.body.message, /still in progress/);
    assert.equal(await first.store.count('links'), 200);
    const done = answers.find((a) => a.status === 200)!;
    for (const app of [first, second]) {
      const again = await send(app);
      assert.deepEqual([again.status, again.text, again.headers.get('idempotent-replayed')], [200, done.text, 'true']);
    }
    assert.equal(await first.store.count('links'), 200);
  });

  await t.test('a key marked running for longer than ABANDONED_MS, with nothing committed, is taken over; a younger one is a 409', async () => {
    const { call, store, clock, makeUser } = await testApp({ rateLimit: 1000 });
    const alice = await makeUser('alice');
    const request = async (key: string) => call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/cut-off' }, headers: { [KEY]: key } });
    // What a request leaves when its process dies before its write commits: the claim, no answer, no
    // mark of a commit (the hash is the one this request gets).
    const first = await request('cut-off');
    const kept = (await allOf(store, IDEMPOTENCY_COLLECTION)).find((r) => r.key === 'cut-off')!;
    assert.equal(kept.committedAt, clock.now(), 'the create marked the key as it committed');
    await store.transaction((tx) => tx.update(IDEMPOTENCY_COLLECTION, kept.id, { answer: null, committedAt: null, created: clock.now() - ABANDONED_MS + 60_000 }));
    assert.equal((await request('cut-off')).status, 409);
    clock.advance(61_000);
    const taken = await request('cut-off');
    assert.equal(taken.status, 200, taken.text);
    assert.equal(taken.headers.get('idempotent-replayed'), null);
    assert.equal(taken.body.id, first.body.id, 'it ran again (the same link, by the create-or-return rule)');
    assert.equal((await request('cut-off')).headers.get('idempotent-replayed'), 'true');
  });

  await t.test('a request whose write committed but whose answer was lost (a crash between the two) never runs again: 409 busy, then the lost-answer 409 for good', async () => {
    const { call, store, clock, makeUser } = await testApp({ rateLimit: 1000 });
    const alice = await makeUser('alice');
    const request = () => call('POST', '/api/qr/add', { key: alice.key, body: { type: 'text', data: 'made once' }, headers: { [KEY]: 'lost-answer' } });
    assert.equal((await request()).status, 200);
    const kept = (await allOf(store, IDEMPOTENCY_COLLECTION)).find((r) => r.key === 'lost-answer')!;
    assert.equal(typeof kept.committedAt, 'number');
    // What kill -9 after the commit and before the answer was kept leaves: the mark, no answer.
    await store.transaction((tx) => tx.update(IDEMPOTENCY_COLLECTION, kept.id, { answer: null }));
    const soon = await request();
    assert.equal(soon.status, 409);
    assert.match(soon.body.message, /still in progress/);
    clock.advance(LOST_AFTER_MS);
    assert.match((await request()).body.message, /still in progress/, 'a request still within ABANDONED_MS of its start may still answer');
    clock.advance(ABANDONED_MS);
    const lost = await request();
    assert.equal(lost.status, 409, lost.text);
    assert.match(lost.body.message, /was carried out, but its answer was not kept/);
    assert.equal(lost.headers.get('idempotent-replayed'), 'true');
    clock.advance(KEEP_MS / 2);
    assert.match((await request()).body.message, /was carried out/, 'for good');
    assert.equal((await allOf(store, 'qrs')).length, 1, 'the QR code was made once');
  });

  await t.test('a webhook\'s creation, whose answer shows its secret, is not kept nor run again: a retry is told so', async () => {
    const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
    const alice = await makeUser('alice');
    const request = () => call('POST', '/api/webhooks', { key: alice.key, body: { url: 'https://hooks.example.com/once', events: ['link.created'] }, headers: { [KEY]: 'hook-once' } });
    const first = await request();
    assert.equal(first.status, 200, first.text);
    const secret = first.body.secret as string;
    const again = await request();
    assert.equal(again.status, 409, again.text);
    assert.match(again.body.message, /showed a secret once, and is not kept: it is not run again/);
    assert.equal((await allOf(store, 'webhooks')).length, 1);
    assert.ok(!JSON.stringify(await allOf(store, IDEMPOTENCY_COLLECTION)).includes(secret));
  });

  await t.test('a refused request wrote nothing and marks nothing', async () => {
    const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
    const alice = await makeUser('alice');
    const made = await call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/refused', custom: 'x' }, headers: { [KEY]: 'refused' } });
    assert.equal(made.status, 400, made.text);
    const kept = (await allOf(store, IDEMPOTENCY_COLLECTION)).find((r) => r.key === 'refused')!;
    assert.equal(kept.committedAt ?? null, null, 'a refused create wrote nothing');
  });

  await t.test('an answer of 5xx is not kept: the retry with the key runs again', async () => {
    const inner = await openTestStore();
    let failNext = false;
    const store = new Proxy(inner, {
      get: (target, name) => {
        if (name === 'transaction') {
          return <R>(fn: (tx: Tx) => Promise<R>) =>
            target.transaction(async (tx) => {
              const insertMany = tx.insertMany.bind(tx);
              const insert = tx.insert.bind(tx);
              const failing = async () => {
                failNext = false;
                throw new StoreUnavailableError('the database went away');
              };
              return fn({ ...bindAll(tx), insert: (c, d) => (failNext && c === 'links' ? failing() : insert(c, d)), insertMany: (c, d) => (failNext ? failing() : insertMany(c, d)) } as Tx);
            });
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Store;
    const { call, makeUser } = await testApp({ rateLimit: 1000 }, { store });
    const alice = await makeUser('alice');
    const request = () => call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/five-hundred' }, headers: { [KEY]: 'flaky' } });
    failNext = true;
    const failed = await request();
    assert.equal(failed.status, 503, failed.text);
    const retried = await request();
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    assert.equal((await allOf(inner, 'links')).length, 1);
  });
});

/** Every method of a transaction, bound to it (a PgTx keeps them on its prototype). */
function bindAll(tx: Tx): Tx {
  const names = ['get', 'getForUpdate', 'lookup', 'getMany', 'lookupMany', 'find', 'count', 'insert', 'insertMany', 'update', 'remove', 'put', 'removeWhere', 'dropCounts', 'addCounts', 'putFileContent', 'appendEvents'] as const;
  return Object.fromEntries(names.map((n) => [n, (tx[n] as (...a: unknown[]) => unknown).bind(tx)])) as unknown as Tx;
}

test('holdsSecret: an answer naming a secret shown once is known by its JSON, whatever route gave it', () => {
  assert.equal(holdsSecret('{"error":0,"id":1,"apikey":"sk_x"}'), true);
  assert.equal(holdsSecret('{"error":0,"data":{"id":2,"secret": "whsec_y"}}'), true);
  assert.equal(holdsSecret('{"error":0,"id":1,"shorturl":"http://sho.rt/apikey"}'), false);
  assert.equal(holdsSecret('{"error":0,"data":{"secret":null}}'), false);
});
