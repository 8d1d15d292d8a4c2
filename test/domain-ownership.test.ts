import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';
import { refusingName } from '../src/links/main-host.ts';
import { OwnershipProofs } from '../src/ownership/proofs.ts';
import type { ResolveTxt } from '../src/ownership/proofs.ts';
import { ownershipToken } from '../src/ownership/token.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { TEST_BACKEND, freshSchema } from './backend.ts';
import { openTestStore, snapshotOf, testApp } from './helpers.ts';

/**
 * Branded domains: the server's own names and their subdomains, and REFUSED_DOMAINS, are never
 * accepted; with DOMAIN_CHECK=txt a domain is added only once its user's TXT record is published.
 */

const OWN = "That domain is this server's own host and cannot be added.";

test('refusingName: the configured names and every subdomain of them; an IP address refuses only itself', () => {
  const config = { baseUrl: 'http://sho.rt', reservedDomains: ['links.example.org', '203.0.113.9'], refusedDomains: ['github.io', 'gov.example'] };
  const cases: [string, ReturnType<typeof refusingName>][] = [
    ['sho.rt', { name: 'sho.rt', own: true }],
    ['evil.sho.rt', { name: 'sho.rt', own: true }],
    ['a.b.c.sho.rt', { name: 'sho.rt', own: true }],
    ['EVIL.SHO.RT.', { name: 'sho.rt', own: true }],
    ['x.links.example.org', { name: 'links.example.org', own: true }],
    ['203.0.113.9', { name: '203.0.113.9', own: true }],
    ['x.203.0.113.9', null],
    ['me.github.io', { name: 'github.io', own: false }],
    ['github.io', { name: 'github.io', own: false }],
    ['notsho.rt', null],
    ['sho.rt.example.com', null],
    ['example.org', null],
    ['mygithub.io', null],
  ];
  for (const [host, want] of cases) assert.deepEqual(refusingName(config, host), want, host);
  assert.deepEqual(refusingName({ baseUrl: 'http://[2001:db8::1]:3000', reservedDomains: [], refusedDomains: [] }, 'x.[2001:db8::1]'), null);
});

test('REFUSED_DOMAINS and DOMAIN_CHECK=txt settings', () => {
  assert.deepEqual(loadConfig({}).refusedDomains, []);
  assert.deepEqual(loadConfig({ REFUSED_DOMAINS: 'GitHub.io, https://gov.example ,' }).refusedDomains, ['github.io', 'gov.example']);
  assert.deepEqual(loadConfig({}, ['--refused-domains', 'a.example']).refusedDomains, ['a.example']);
  assert.throws(() => loadConfig({ REFUSED_DOMAINS: 'x.example/path' }), (e: unknown) => e instanceof ConfigError && /REFUSED_DOMAINS/.test(e.message));
  assert.equal(loadConfig({ DOMAIN_CHECK: 'txt' }).domainCheck, 'txt');
  assert.throws(() => loadConfig({ DOMAIN_CHECK: 'http' }), (e: unknown) => e instanceof ConfigError && /off, dns, txt/.test(e.message));
});

test("subdomains of the server's own names and REFUSED_DOMAINS names are refused with a 400 naming the reason; nothing is stored", async (t) => {
  const { call, store } = await testApp({ rateLimit: 1000, reservedDomains: ['links.example.org'], refusedDomains: ['github.io'] });
  const add = (domain: string) => call('POST', '/api/domain/add', { body: { domain } });
  const refused: [string, string][] = [
    ['https://evil.sho.rt', "That domain is under this server's own host sho.rt and cannot be added."],
    ['http://A.B.Sho.Rt:8080', "That domain is under this server's own host sho.rt and cannot be added."],
    ['https://go.links.example.org', "That domain is under this server's own host links.example.org and cannot be added."],
    ['https://sho.rt', OWN],
    ['https://me.github.io', 'Domains under github.io cannot be added on this server.'],
    ['https://github.io', 'Domains under github.io cannot be added on this server.'],
  ];
  for (const [domain, message] of refused) {
    await t.test(domain, async () => {
      const before = await snapshotOf(store, 'domains');
      const r = await add(domain);
      assert.deepEqual([r.status, r.body], [400, { error: 1, message }]);
      assert.equal(await snapshotOf(store, 'domains'), before);
    });
  }
  await t.test('names that only look alike are accepted', async () => {
    for (const domain of ['https://notsho.rt', 'https://sho.rt.example.com', 'https://mygithub.io']) {
      const r = await add(domain);
      assert.equal(r.status, 200, `${domain}: ${r.text}`);
    }
  });
});

/** A DNS of our own: TXT records by name; a name in `failing` does not answer. */
function fakeDns() {
  const txt = new Map<string, string[][]>();
  const failing = new Set<string>();
  const resolveTxt: ResolveTxt = async (name) => {
    if (failing.has(name)) throw Object.assign(new Error('ESERVFAIL'), { code: 'ESERVFAIL' });
    const found = txt.get(name);
    if (!found) throw Object.assign(new Error('ENODATA'), { code: 'ENODATA' });
    return found;
  };
  return { txt, failing, resolveTxt };
}

test('DOMAIN_CHECK=txt: the record is learnt before the add, the add is refused until it is published, then accepted', async () => {
  const dns = fakeDns();
  const store = await openTestStore();
  const proofs = new OwnershipProofs(store, { resolveTxt: dns.resolveTxt, timeoutMs: 50 });
  const { call, makeUser } = await testApp({ rateLimit: 1000, domainCheck: 'txt' }, { store, proofs });
  const [alice, bob] = [await makeUser('alice'), await makeUser('bob')];
  const add = (key: string, domain: string) => call('POST', '/api/domain/add', { key, body: { domain } });

  const asked = await call('GET', '/api/domains/verification?domain=https://GO.Brand.example/', { key: alice.key });
  assert.equal(asked.status, 200, asked.text);
  const record = asked.body.data.record as { name: string; type: string; value: string };
  assert.deepEqual(asked.body, { error: 0, data: { domain: 'go.brand.example', record: { name: '_shortlink.go.brand.example', type: 'TXT', value: record.value }, required: true } });
  assert.match(record.value, /^shortlink-verify=[0-9a-f]{32}$/);
  const again = await call('GET', '/api/domains/verification?domain=other.example', { key: alice.key });
  assert.equal(again.body.data.record.value, record.value, "one token per user, whatever the host");
  const bobs = (await call('GET', '/api/domains/verification?domain=go.brand.example', { key: bob.key })).body.data.record.value;
  assert.notEqual(bobs, record.value, 'each user has a token of their own');

  const before = await snapshotOf(store, 'domains');
  const missing = await add(alice.key, 'https://go.brand.example');
  assert.deepEqual([missing.status, missing.body], [400, { error: 1, message: `Prove that you own go.brand.example first: publish a DNS TXT record named _shortlink.go.brand.example with the value ${record.value}, then try again (a new record may take a few minutes to be seen).` }]);
  dns.txt.set('_shortlink.go.brand.example', [[bobs]]);
  const othersRecord = await add(alice.key, 'https://go.brand.example');
  assert.equal(othersRecord.status, 400, "bob's record proves nothing for alice");
  dns.failing.add('_shortlink.go.brand.example');
  const unread = await add(alice.key, 'https://go.brand.example');
  assert.deepEqual([unread.status, unread.body.message], [400, `The TXT records of _shortlink.go.brand.example could not be read. To prove that you own go.brand.example, publish a DNS TXT record named _shortlink.go.brand.example with the value ${record.value}, then try again.`]);
  assert.equal(await snapshotOf(store, 'domains'), before);

  dns.failing.clear();
  dns.txt.set('_shortlink.go.brand.example', [[bobs], [`  ${record.value}`]]);
  const added = await add(alice.key, 'https://go.brand.example');
  assert.equal(added.status, 200, added.text);
  assert.equal((await store.get<{ id: number; domain: string }>('domains', added.body.id))?.domain, 'https://go.brand.example');
});

test('DOMAIN_CHECK=txt: a resolver that hangs is given up after the timeout', async () => {
  const store = await openTestStore();
  const hanging: ResolveTxt = () => new Promise(() => {});
  const { call } = await testApp({ domainCheck: 'txt' }, { store, proofs: new OwnershipProofs(store, { resolveTxt: hanging, timeoutMs: 30 }) });
  const started = Date.now();
  const r = await call('POST', '/api/domain/add', { body: { domain: 'https://slow.example' } });
  assert.equal(r.status, 400);
  assert.match(r.body.message, /could not be read/);
  assert.ok(Date.now() - started < 2000);
});

test('GET /api/domains/verification: a key is needed, the domain must be a host name; it answers without DOMAIN_CHECK too', async () => {
  const { call, store } = await testApp({ rateLimit: 1000 });
  const before = await snapshotOf(store, 'domains');
  assert.equal((await call('GET', '/api/domains/verification?domain=go.example.com', { key: null })).status, 401);
  const none = await call('GET', '/api/domains/verification');
  assert.deepEqual([none.status, none.body], [400, { error: 1, message: 'Missing required parameter: domain' }]);
  for (const bad of ['-bad.example', 'https://go.example.com/path', '10.0.0.1', 'localhost', 'a b.example', '']) {
    const r = await call('GET', `/api/domains/verification?domain=${encodeURIComponent(bad)}`);
    assert.deepEqual([r.status, r.body], [400, { error: 1, message: 'Please enter a valid domain: a host name such as go.example.com.' }], bad);
  }
  const ok = await call('GET', '/api/domains/verification?domain=go.example.com');
  assert.deepEqual([ok.status, ok.body.data.required], [200, false]);
  assert.equal(await snapshotOf(store, 'domains'), before);
});

test('ownership tokens: per user, stable, bound to the server secret and the user (a reused id gets another)', () => {
  const secret = Buffer.alloc(32, 7);
  const alice = { id: 4, registered: '2026-11-21 10:00:00' };
  assert.equal(ownershipToken(secret, alice), ownershipToken(secret, { ...alice }));
  assert.notEqual(ownershipToken(secret, alice), ownershipToken(secret, { id: 5, registered: alice.registered }));
  assert.notEqual(ownershipToken(secret, alice), ownershipToken(secret, { id: 4, registered: '2026-12-01 09:00:00' }));
  assert.notEqual(ownershipToken(secret, alice), ownershipToken(Buffer.alloc(32, 8), alice));
  assert.match(ownershipToken(secret, alice), /^[0-9a-f]{32}$/);
});

test('the secret behind the tokens is kept by the store: the same after a restart and in another process', async () => {
  const user = { id: 1, registered: '2026-11-21 10:00:00' };
  if (TEST_BACKEND === 'postgres') {
    const schema = freshSchema();
    const open = () => PostgresStore.open({ url: process.env.TEST_DATABASE_URL!, schema, collections: storeSchema(RESOURCES), poolSize: 2, listen: false });
    const [one, two] = [await open(), await open()];
    try {
      const [a, b] = await Promise.all([new OwnershipProofs(one).token(user), new OwnershipProofs(two).token(user)]);
      assert.equal(a, b, 'two processes agree on the secret');
      await one.close();
      const three = await open();
      try {
        assert.equal(await new OwnershipProofs(three).token(user), a, 'and it survives a restart');
      } finally {
        await three.close();
      }
    } finally {
      await two.close();
    }
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'kept-values-'));
  try {
    const open = () => FileStore.open({ dir, collections: storeSchema(RESOURCES) });
    const first = await open();
    const token = await new OwnershipProofs(first).token(user);
    await first.close();
    assert.equal((await stat(join(dir, 'kept-values.json'))).mode & 0o777, 0o600, 'the secret file is the owner\'s only');
    const second = await open();
    try {
      assert.equal(await new OwnershipProofs(second).token(user), token, 'the same token after a restart');
    } finally {
      await second.close();
    }
    // A damaged file stops the start rather than handing every user a new token.
    await writeFile(join(dir, 'kept-values.json'), '{"ownership secret": 1');
    await assert.rejects(open(), /kept-values\.json is unreadable/);
    assert.equal(await readFile(join(dir, 'kept-values.json'), 'utf8'), '{"ownership secret": 1', 'left untouched');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const memory = await openTestStore();
  const proposals = await Promise.all(['a', 'b', 'c'].map((v) => memory.keptValue('x', v)));
  assert.deepEqual(proposals, ['a', 'a', 'a'], 'the first proposal wins, also among callers at the same moment');
});
