import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwnershipProofs } from '../src/ownership/proofs.ts';
import type { ProofFetch, ResolveTxt } from '../src/ownership/proofs.ts';
import type { Website } from '../src/analytics/websites.ts';
import { allOf, openTestStore, snapshotOf, testApp } from './helpers.ts';

/**
 * Website ownership: several users may track one domain; its events go to one website only, the
 * domain's first, until another user proves owning the domain (DNS TXT record or token file) and
 * takes them over. Nothing a stranger is answered tells that another user tracks a domain.
 */

/** A DNS and a web of our own: TXT records by name, token files by URL. */
function fakeInternet() {
  const txt = new Map<string, string[][]>();
  const files = new Map<string, string>();
  /** Names whose lookups fail (a name server that does not answer). */
  const failing = new Set<string>();
  const asked: string[] = [];
  const resolveTxt: ResolveTxt = async (name) => {
    asked.push(`TXT ${name}`);
    if (failing.has(name)) throw Object.assign(new Error(`queryTxt ESERVFAIL ${name}`), { code: 'ESERVFAIL' });
    const records = txt.get(name);
    if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return records;
  };
  const fetch: ProofFetch = async (url) => {
    asked.push(`GET ${url.href}`);
    const body = files.get(url.href);
    return body === undefined ? new Response('no such file', { status: 404 }) : new Response(body);
  };
  return { txt, files, failing, asked, resolveTxt, fetch };
}

async function world() {
  const net = fakeInternet();
  const store = await openTestStore();
  const proofs = new OwnershipProofs(store, { resolveTxt: net.resolveTxt, fetch: net.fetch, timeoutMs: 200 });
  const t = await testApp({ trustProxy: true, analyticsRateLimit: 100_000, rateLimit: 100_000 }, { store, proofs });
  const [alice, bob, carol] = [await t.makeUser('alice'), await t.makeUser('bob'), await t.makeUser('carol')];
  const add = (key: string, domain: string) => t.call('POST', '/api/v1/websites', { key, body: { domain } });
  const verify = (key: string, id: number) => t.call('POST', `/api/v1/websites/${id}/verify`, { key });
  /** The TXT record a user is told to publish for `host`. */
  const recordOf = async (key: string, host: string) => {
    const r = await t.call('GET', `/api/domains/verification?domain=${host}`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body.data.record as { name: string; type: string; value: string };
  };
  const visit = (page: string, ip = '192.0.2.10') =>
    t.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page }), headers: { 'content-type': 'text/plain', 'x-forwarded-for': ip, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } });
  /** Pageviews counted for a website, by its owner's key. */
  const pageviews = async (key: string, id: number) => {
    const r = await t.call('GET', `/api/v1/stats/${id}?name=pageviews&from=2026-11-21&to=2026-11-21`, { key });
    assert.equal(r.status, 200, r.text);
    return (r.body.data as { count: number }[]).reduce((n, row) => n + row.count, 0);
  };
  const stored = async (id: number) => (await t.store.get<Website>('websites', id))!;
  return { ...t, net, alice, bob, carol, add, verify, recordOf, visit, pageviews, stored };
}

test("a second user may add a tracked domain: 201 like any add, no word of the first, and the events stay the first one's", async () => {
  const w = await world();
  const first = await w.add(w.alice.key, 'alice.test');
  assert.equal(first.status, 201, first.text);
  assert.deepEqual([first.body.data.receives_events, first.body.data.verified_at], [true, null]);

  const second = await w.add(w.bob.key, 'https://www.Alice.test/');
  assert.equal(second.status, 201, second.text);
  assert.deepEqual(Object.keys(second.body.data), Object.keys(first.body.data), 'the same shape as any website');
  assert.deepEqual([second.body.data.domain, second.body.data.receives_events, second.body.data.verified_at], ['alice.test', false, null]);
  assert.doesNotMatch(second.text, /taken|user_alice|alice@|already/i);
  const bobs = await w.stored(second.body.data.id);
  assert.deepEqual([bobs.userId, bobs.domain, bobs.receives], [w.bob.id, 'alice.test', false]);

  // A user's own duplicate is still refused, by the message any user gets for their own: it tells nothing of others.
  const before = await snapshotOf(w.store, 'websites');
  const again = await w.add(w.bob.key, 'alice.test');
  assert.deepEqual([again.status, again.body], [422, { message: { domain: ['The domain has already been taken.'] }, status: 422 }]);
  assert.equal(await snapshotOf(w.store, 'websites'), before);

  // Events: the first website's only; the stats page is the first website's.
  assert.equal((await w.visit('https://alice.test/pricing')).status, 202);
  assert.equal((await w.visit('https://www.alice.test/', '192.0.2.11')).status, 202);
  assert.deepEqual([await w.pageviews(w.alice.key, first.body.data.id), await w.pageviews(w.bob.key, second.body.data.id)], [2, 0]);
  const page = await w.call('GET', '/stats/alice.test', { key: null });
  assert.equal(page.status, 200);
  assert.match(page.text, /alice\.test/);
});

test('verify: a failed proof is a 422 naming the TXT record and the token file, and changes nothing', async () => {
  const w = await world();
  const alices = (await w.add(w.alice.key, 'alice.test')).body.data.id as number;
  const bobs = (await w.add(w.bob.key, 'alice.test')).body.data.id as number;
  const record = await w.recordOf(w.bob.key, 'alice.test');
  const token = record.value.replace('shortlink-verify=', '');
  assert.deepEqual([record.name, record.type], ['_shortlink.alice.test', 'TXT']);
  assert.match(token, /^[0-9a-f]{32}$/);

  // Another user's token proves nothing for bob, in DNS or in the file.
  w.net.txt.set('_shortlink.alice.test', [[(await w.recordOf(w.alice.key, 'alice.test')).value]]);
  w.net.files.set('https://alice.test/.well-known/shortlink-verify.txt', (await w.recordOf(w.carol.key, 'alice.test')).value.slice('shortlink-verify='.length));
  const before = await snapshotOf(w.store, 'websites');
  const r = await w.verify(w.bob.key, bobs);
  const message = `The domain could not be verified. Publish a DNS TXT record named _shortlink.alice.test with the value shortlink-verify=${token}, or serve https://alice.test/.well-known/shortlink-verify.txt containing ${token}, then try again.`;
  assert.deepEqual([r.status, r.body], [422, { message: { domain: [message] }, status: 422 }]);
  assert.equal(await snapshotOf(w.store, 'websites'), before);
  assert.deepEqual(w.net.asked.slice(-2), ['TXT _shortlink.alice.test', 'GET https://alice.test/.well-known/shortlink-verify.txt']);

  // A resolver that fails is told apart from a record that is not there.
  w.net.failing.add('_shortlink.alice.test');
  const down = await w.verify(w.bob.key, bobs);
  assert.equal(down.status, 422);
  assert.match(down.body.message.domain[0], /^The domain could not be verified: its TXT records or its token file could not be read\. Publish a DNS TXT record named _shortlink\.alice\.test/);
  w.net.failing.clear();

  // Another user's website answers as a missing one, and is not verified.
  for (const id of [alices, 999999]) {
    const other = await w.verify(w.bob.key, id);
    assert.deepEqual([other.status, other.body], [404, { message: 'Resource not found.', status: 404 }]);
  }
  assert.equal(await snapshotOf(w.store, 'websites'), before);
  assert.deepEqual((await w.call('POST', `/api/v1/websites/${bobs}/verify`, { key: null })).status, 401);
});

test('a proof by TXT record takes the events over; the first website keeps its statistics; a later proof by token file takes them back', async () => {
  const w = await world();
  const alices = (await w.add(w.alice.key, 'shared.test')).body.data.id as number;
  const bobs = (await w.add(w.bob.key, 'shared.test')).body.data.id as number;
  await w.visit('https://shared.test/');
  w.clock.set('2026-11-21T11:00:00Z');

  // A long TXT value may come in several strings: they make one value.
  const value = (await w.recordOf(w.bob.key, 'shared.test')).value;
  w.net.txt.set('_shortlink.shared.test', [['v=spf1 -all'], [value.slice(0, 20), value.slice(20)]]);
  const r = await w.verify(w.bob.key, bobs);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual([r.body.status, r.body.data.id, r.body.data.receives_events, r.body.data.verified_at], [200, bobs, true, '2026-11-21T11:00:00.000000Z']);
  assert.deepEqual([(await w.stored(alices)).receives, (await w.stored(alices)).verified_at, (await w.stored(bobs)).receives], [false, null, true]);
  const shown = await w.call('GET', `/api/v1/websites/${alices}`, { key: w.alice.key });
  assert.deepEqual([shown.body.data.receives_events, shown.body.data.verified_at], [false, null]);

  await w.visit('https://shared.test/after', '192.0.2.20');
  assert.deepEqual([await w.pageviews(w.alice.key, alices), await w.pageviews(w.bob.key, bobs)], [1, 1], "alice keeps what she counted; new events are bob's");

  // The first owner can prove ownership too: the latest proof wins (a file this time).
  w.net.txt.clear();
  const aliceToken = (await w.recordOf(w.alice.key, 'shared.test')).value.slice('shortlink-verify='.length);
  w.net.files.set('https://shared.test/.well-known/shortlink-verify.txt', `${aliceToken}\n`);
  w.clock.set('2026-11-21T12:00:00Z');
  const back = await w.verify(w.alice.key, alices);
  assert.equal(back.status, 200, back.text);
  assert.deepEqual([back.body.data.receives_events, back.body.data.verified_at], [true, '2026-11-21T12:00:00.000000Z']);
  assert.deepEqual([(await w.stored(bobs)).receives, (await w.stored(bobs)).verified_at], [false, null]);
  await w.visit('https://shared.test/back', '192.0.2.30');
  assert.deepEqual([await w.pageviews(w.alice.key, alices), await w.pageviews(w.bob.key, bobs)], [2, 1]);

  // Proving again what it already has changes only the time of the proof.
  w.clock.set('2026-11-21T13:00:00Z');
  const again = await w.verify(w.alice.key, alices);
  assert.deepEqual([again.status, again.body.data.receives_events, again.body.data.verified_at], [200, true, '2026-11-21T13:00:00.000000Z']);
  const receiving = (await allOf<Website>(w.store, 'websites')).filter((s) => s.receives !== false);
  assert.deepEqual(receiving.map((s) => s.id), [alices]);
});

test('the first website of a domain verifies without taking anything; the file must be the token, under 1 KiB, answered 200', async () => {
  const w = await world();
  const id = (await w.add(w.carol.key, 'files.test')).body.data.id as number;
  const token = (await w.recordOf(w.carol.key, 'files.test')).value.slice('shortlink-verify='.length);
  const url = 'https://files.test/.well-known/shortlink-verify.txt';
  for (const body of [`${token}${' '.repeat(1100)}`, `${token}x`, `x${token}`, '']) {
    w.net.files.set(url, body);
    assert.equal((await w.verify(w.carol.key, id)).status, 422, JSON.stringify(body.slice(0, 40)));
  }
  assert.equal((await w.stored(id)).verified_at, null);
  w.net.files.set(url, `  ${token}\r\n`);
  const r = await w.verify(w.carol.key, id);
  assert.deepEqual([r.status, r.body.data.receives_events, r.body.data.verified_at], [200, true, '2026-11-21T10:00:00.000000Z']);
});

test('a deleted receiving website hands its events to nobody; a domain with no website left starts afresh', async () => {
  const w = await world();
  const alices = (await w.add(w.alice.key, 'gone.test')).body.data.id as number;
  const bobs = (await w.add(w.bob.key, 'gone.test')).body.data.id as number;
  assert.equal((await w.call('DELETE', `/api/v1/websites/${alices}`, { key: w.alice.key })).status, 200);
  const lost = await w.visit('https://gone.test/');
  assert.deepEqual([lost.status, lost.body], [404, { error: 1, message: 'Website not found.' }]);
  assert.equal((await w.stored(bobs)).receives, false, "bob's website still has to prove ownership");
  const carols = await w.add(w.carol.key, 'gone.test');
  assert.deepEqual([carols.status, carols.body.data.receives_events], [201, false], 'a website of the domain exists: a newcomer does not receive');

  for (const [key, id] of [[w.bob.key, bobs], [w.carol.key, carols.body.data.id]] as const) assert.equal((await w.call('DELETE', `/api/v1/websites/${id}`, { key })).status, 200);
  const fresh = await w.add(w.alice.key, 'gone.test');
  assert.deepEqual([fresh.status, fresh.body.data.receives_events], [201, true]);
  assert.equal((await w.visit('https://gone.test/', '192.0.2.99')).status, 202);
});

test('a client cannot say which website receives: receives, receives_events and verified_at are not fields of a create or an update', async () => {
  const w = await world();
  await w.add(w.alice.key, 'claim.test');
  const sneaky = await w.call('POST', '/api/v1/websites', { key: w.bob.key, body: { domain: 'claim.test', receives: true, receives_events: 1, verified_at: '2026-01-01T00:00:00.000000Z' } });
  assert.equal(sneaky.status, 201, sneaky.text);
  assert.deepEqual([sneaky.body.data.receives_events, sneaky.body.data.verified_at], [false, null]);
  const id = sneaky.body.data.id as number;
  for (const method of ['PUT', 'PATCH']) {
    const r = await w.call(method, `/api/v1/websites/${id}`, { key: w.bob.key, body: { receives: true, receives_events: true, verified_at: '2026-01-01T00:00:00.000000Z', favorite: true } });
    assert.deepEqual([r.status, r.body.data.receives_events, r.body.data.verified_at, r.body.data.favorite], [200, false, null, true], method);
  }
  assert.deepEqual([(await w.stored(id)).receives, (await w.stored(id)).verified_at], [false, null]);
  assert.equal((await w.visit('https://claim.test/')).status, 202);
  assert.equal(await w.pageviews(w.bob.key, id), 0);
});

test('users racing to add one new domain: every add succeeds, exactly one website receives', async () => {
  const w = await world();
  const users = await Promise.all(Array.from({ length: 8 }, (_, i) => w.makeUser(`racer${i}`)));
  const answers = await Promise.all(users.map((u) => w.add(u.key, 'race.test')));
  assert.deepEqual(answers.map((a) => a.status), answers.map(() => 201), answers.map((a) => a.text).join('\n'));
  assert.equal(answers.filter((a) => a.body.data.receives_events).length, 1);
  const receiving = (await allOf<Website>(w.store, 'websites')).filter((s) => s.domain === 'race.test' && s.receives !== false);
  assert.equal(receiving.length, 1);
});

test('users racing to verify one domain: every proof succeeds in turn, exactly one website receives at the end', async () => {
  const w = await world();
  const users = await Promise.all(Array.from({ length: 6 }, (_, i) => w.makeUser(`prover${i}`)));
  const ids: number[] = [];
  const values: string[][] = [];
  for (const u of users) {
    ids.push((await w.add(u.key, 'contest.test')).body.data.id);
    values.push([(await w.recordOf(u.key, 'contest.test')).value]);
  }
  // Every user has published a record: a domain may hold many TXT records.
  w.net.txt.set('_shortlink.contest.test', values);
  const answers = await Promise.all(users.map((u, i) => w.verify(u.key, ids[i]!)));
  assert.deepEqual(answers.map((a) => a.status), answers.map(() => 200), answers.map((a) => a.text).join('\n'));
  const receiving = (await allOf<Website>(w.store, 'websites')).filter((s) => s.domain === 'contest.test' && s.receives !== false);
  assert.equal(receiving.length, 1);
  assert.notEqual((await w.stored(receiving[0]!.id)).verified_at, null);
});
