import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_BACKEND } from './backend.ts';
import { ownedBy, testApp } from './helpers.ts';
import { recordQueries } from './pg-client.ts';
import { aliasKey } from '../src/links/alias.ts';
import { seededRandom, TOKEN_ALPHABET } from '../src/random.ts';
import type { RandomSource } from '../src/random.ts';

// A made-up alias that a file or a link holds already: whether the server looked it up first (a
// single create; the file store) or left it to the store's refusal and tried the item again alone
// (a bulk create on PostgreSQL), the item is answered with a link of a fresh alias, never with
// "alias taken" for an alias its user did not choose.

const ALIAS_TAKEN = 'That alias is taken. Please choose another one.';

/**
 * The app's random source, with a script: each alias pushed is what the next alias drawn
 * (randomToken of 6 characters: 12 bytes asked) comes out as; the seeded source otherwise.
 */
function scriptedRandom(): RandomSource & { script: string[] } {
  const rest = seededRandom('bulk-alias-clash');
  const script: string[] = [];
  return {
    script,
    bytes(n) {
      const next = n === 12 ? script.shift() : undefined;
      if (next === undefined) return rest.bytes(n);
      // Byte i picks TOKEN_ALPHABET[i]; the bytes past the alias's characters go unused.
      const picks = [...next].map((c) => TOKEN_ALPHABET.indexOf(c));
      if (picks.includes(-1)) throw new Error(`${next}: randomToken never makes it`);
      return Uint8Array.from({ length: n }, (_, i) => picks[i] ?? 0);
    },
  };
}

test('a bulk create whose made-up aliases a file or a link holds answers every item with a link of a fresh alias', async (t) => {
  const random = scriptedRandom();
  const { call, app, store, makeUser } = await testApp({ rateLimit: 0, fileMaxBytes: 4096 }, { random });
  const alice = await makeUser('alice');
  const bulk = (body: unknown) => call('POST', '/api/url/bulk', { key: alice.key, body });
  const aliasOf = (shorturl: string) => new URL(shorturl).pathname.slice(1);
  const linkAt = (alias: string) => store.lookup('links', 'alias', aliasKey(null, alias));

  const upload = await app.request('/api/files/upload/note.txt?custom=docuAa', { method: 'POST', headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/octet-stream' }, body: 'a note\n' });
  assert.equal(upload.status, 200, await upload.clone().text());
  const file = await store.lookup('files', 'alias', aliasKey(null, 'docuAa'));
  assert.ok(file, 'the file holds its alias');
  const held = await call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/held', custom: 'hrefBb' } });
  assert.equal(held.status, 200, held.text);
  const heldLink = await linkAt('hrefBb');

  await t.test('the script drives the aliases: a bulk create of two links takes the two scripted ones, in order', async () => {
    random.script.push('freshA', 'freshB');
    const r = await bulk({ urls: [{ url: 'https://example.com/s1' }, { url: 'https://example.com/s2' }] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.results.map((x: { shorturl: string }) => aliasOf(x.shorturl)), ['freshA', 'freshB']);
    assert.equal(random.script.length, 0);
  });

  await t.test('made-up aliases that a file and a link hold: every item is stored under another alias, a custom one as asked', async () => {
    const before = await store.count('links');
    random.script.push('docuAa', 'hrefBb');
    const urls = [{ url: 'https://example.com/c1' }, { url: 'https://example.com/c2' }, { url: 'https://example.com/c3', custom: 'chosen' }];
    const r = await bulk({ urls });
    assert.equal(r.status, 200, r.text);
    assert.equal(random.script.length, 0, 'both scripted aliases were drawn');
    assert.deepEqual(r.body.results.map((x: { error: number }) => x.error), [0, 0, 0], r.text);
    assert.equal(r.body.succeeded, 3);
    const aliases = r.body.results.map((x: { shorturl: string }) => aliasOf(x.shorturl));
    assert.equal(aliases[2], 'chosen');
    for (const a of aliases.slice(0, 2)) {
      assert.match(a, /^[a-zA-Z2-9]{6}$/);
      assert.ok(!['docuAa', 'hrefBb'].includes(a), `${a} is neither held alias`);
    }
    assert.notEqual(aliases[0], aliases[1]);
    assert.equal(await store.count('links'), before + 3);
    for (const [i, x] of r.body.results.entries()) {
      const stored = await linkAt(aliases[i]);
      assert.equal(stored?.id, x.id);
      assert.equal(stored?.url, urls[i]!.url);
    }
    assert.deepEqual(await linkAt('hrefBb'), heldLink, 'the link that held its alias is as it was');
    assert.deepEqual(await store.lookup('files', 'alias', aliasKey(null, 'docuAa')), file, 'so is the file');
  });

  await t.test('an atomic bulk create stores every item all the same', async () => {
    random.script.push('hrefBb', 'docuAa');
    const r = await bulk({ atomic: true, urls: [{ url: 'https://example.com/t1' }, { url: 'https://example.com/t2' }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(random.script.length, 0);
    assert.equal(r.body.succeeded, 2);
    for (const x of r.body.results) assert.ok(!['docuAa', 'hrefBb'].includes(aliasOf(x.shorturl)));
  });

  await t.test('one new link among items answered otherwise (an equal link, a refused one) still gets a fresh alias', async () => {
    random.script.push('docuAa');
    const urls = [{ url: 'https://example.com/held' }, { url: 'notaurl' }, { url: 'https://example.com/lone' }];
    const r = await bulk({ urls });
    assert.equal(r.status, 200, r.text);
    assert.equal(random.script.length, 0);
    const [same, bad, lone] = r.body.results;
    assert.equal(same.id, heldLink!.id, 'the equal link is answered, not stored again');
    assert.equal(bad.error, 1);
    assert.equal(lone.error, 0, r.text);
    assert.notEqual(aliasOf(lone.shorturl), 'docuAa');
    assert.equal((await linkAt(aliasOf(lone.shorturl)))?.url, 'https://example.com/lone');
  });

  await t.test('a single create draws again; a custom alias a file holds is taken, in a bulk create too', async () => {
    random.script.push('docuAa');
    const single = await call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/single' } });
    assert.equal(single.status, 200, single.text);
    assert.equal(random.script.length, 0);
    assert.notEqual(aliasOf(single.body.shorturl), 'docuAa');
    const before = await store.count('links');
    const r = await bulk({ urls: [{ url: 'https://example.com/k1', custom: 'docuAa' }, { url: 'https://example.com/k2', custom: 'hrefBb' }] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.results, [{ error: 1, message: ALIAS_TAKEN }, { error: 1, message: ALIAS_TAKEN }]);
    assert.equal(await store.count('links'), before);
  });

  const mine = await ownedBy(store, 'links', alice.id);
  assert.equal(new Set(mine.map((l) => l.alias)).size, mine.length, 'no two links share an alias');
  assert.ok(!mine.some((l) => l.alias === 'docuAa'), 'no link took the file\'s alias');
});

test('on PostgreSQL, a made-up alias another link holds costs the batch one statement more, not an insert per link', { skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL only' }, async () => {
  const random = scriptedRandom();
  const { call, store, makeUser } = await testApp({ rateLimit: 0 }, { random });
  const alice = await makeUser('alice');
  const held = await call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/held', custom: 'heavyC' } });
  assert.equal(held.status, 200, held.text);
  const before = await store.count('links');
  random.script.push('freshC', 'heavyC');
  const urls = Array.from({ length: 50 }, (_, i) => ({ url: `https://example.com/batch/${i}` }));
  const { sent, restore } = recordQueries();
  let r;
  try {
    r = await call('POST', '/api/url/bulk', { key: alice.key, body: { urls } });
  } finally {
    restore();
  }
  assert.equal(r.status, 200, r.text);
  assert.equal(random.script.length, 0, 'both scripted aliases were drawn');
  assert.equal(r.body.succeeded, 50, r.text);
  assert.equal(await store.count('links'), before + 50);
  const aliases = r.body.results.map((x: { shorturl: string }) => new URL(x.shorturl).pathname.slice(1));
  assert.equal(aliases[0], 'freshC');
  assert.notEqual(aliases[1], 'heavyC', 'the second link was given another alias');
  assert.equal(new Set(aliases).size, 50);
  const inserts = sent.filter((q) => /^INSERT INTO "links"/.test(q.text.trimStart())).map((q) => q.text);
  // The plain insert of all 50 fails on the held alias; the same batch skipping it stores the other 49;
  // the one left is inserted alone (refused: taken), then again under a fresh alias.
  assert.equal(inserts.length, 4, inserts.join('\n'));
  assert.doesNotMatch(inserts[0]!, /ON CONFLICT/);
  assert.match(inserts[1]!, /ON CONFLICT DO NOTHING/);
});
