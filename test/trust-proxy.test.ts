import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';
import { forwardedClient } from '../src/http/trust-proxy.ts';
import type { TrustProxy } from '../src/http/trust-proxy.ts';
import { liveServer } from './live-server.ts';

test('the client IP is the first untrusted address walking X-Forwarded-For from the socket leftwards', async (t) => {
  const cases: { name: string; socket: string; xff?: string; trust: TrustProxy; client: string }[] = [
    { name: 'off: the socket, whatever the header says', socket: '198.51.100.9', xff: '203.0.113.7', trust: false, client: '198.51.100.9' },
    { name: '0 hops is off', socket: '198.51.100.9', xff: '203.0.113.7', trust: 0, client: '198.51.100.9' },
    { name: 'on: the entry the proxy appended', socket: '127.0.0.1', xff: '203.0.113.7', trust: true, client: '203.0.113.7' },
    { name: 'on: a spoofed leftmost entry is ignored', socket: '127.0.0.1', xff: '6.6.6.6, 203.0.113.7', trust: true, client: '203.0.113.7' },
    { name: 'on: several spoofed entries are ignored', socket: '127.0.0.1', xff: '1.1.1.1,2.2.2.2 , 203.0.113.7', trust: true, client: '203.0.113.7' },
    { name: 'on without the header: the socket', socket: '127.0.0.1', trust: true, client: '127.0.0.1' },
    { name: '1 hop is on', socket: '127.0.0.1', xff: '6.6.6.6, 203.0.113.7', trust: 1, client: '203.0.113.7' },
    { name: '2 hops: CDN then proxy', socket: '127.0.0.1', xff: '6.6.6.6, 203.0.113.7, 10.0.0.2', trust: 2, client: '203.0.113.7' },
    { name: '2 hops but a shorter chain: the leftmost', socket: '127.0.0.1', xff: '203.0.113.7', trust: 2, client: '203.0.113.7' },
    { name: 'CIDR list: trusted proxies are skipped, the spoof is not reached', socket: '10.0.0.1', xff: '6.6.6.6, 203.0.113.7, 10.0.0.2', trust: ['10.0.0.0/8'], client: '203.0.113.7' },
    { name: 'CIDR list: a socket outside it is the client, the header ignored', socket: '198.51.100.9', xff: '203.0.113.7', trust: ['10.0.0.0/8'], client: '198.51.100.9' },
    { name: 'CIDR list: every address trusted, the leftmost', socket: '10.0.0.1', xff: '10.0.0.5, 10.0.0.2', trust: ['10.0.0.0/8'], client: '10.0.0.5' },
    { name: 'CIDR list of single addresses, IPv6', socket: '::1', xff: '6.6.6.6, 2001:db8::7, fd00::2', trust: ['::1', 'fd00::2'], client: '2001:db8::7' },
    { name: 'IPv4-mapped socket matches an IPv4 range', socket: '::ffff:10.0.0.1', xff: '203.0.113.7', trust: ['10.0.0.0/8'], client: '203.0.113.7' },
    { name: 'named ranges: loopback', socket: '127.0.0.1', xff: '6.6.6.6, 203.0.113.7', trust: ['loopback'], client: '203.0.113.7' },
    { name: 'named ranges: uniquelocal then loopback', socket: '127.0.0.1', xff: '6.6.6.6, 203.0.113.7, 192.168.1.2', trust: ['loopback', 'uniquelocal'], client: '203.0.113.7' },
    { name: 'a malformed entry stops the walk at the proxy that passed it (hops)', socket: '127.0.0.1', xff: '203.0.113.7, not-an-ip', trust: true, client: '127.0.0.1' },
    { name: 'a malformed entry stops the walk at the proxy that passed it (CIDR)', socket: '10.0.0.1', xff: '203.0.113.7, unknown, 10.0.0.2', trust: ['10.0.0.0/8'], client: '10.0.0.2' },
    { name: 'markup is never a client IP', socket: '127.0.0.1', xff: '<script>', trust: 3, client: '127.0.0.1' },
    { name: 'an IPv4 entry with a port', socket: '127.0.0.1', xff: '203.0.113.7:4711', trust: true, client: '203.0.113.7' },
    { name: 'a bracketed IPv6 entry with a port', socket: '127.0.0.1', xff: '[2001:db8::7]:443', trust: true, client: '2001:db8::7' },
    { name: 'empty entries are skipped', socket: '127.0.0.1', xff: '203.0.113.7, , ', trust: true, client: '203.0.113.7' },
    { name: 'no socket (in-process request), hops: the header', socket: 'unknown', xff: '6.6.6.6, 203.0.113.7', trust: true, client: '203.0.113.7' },
    { name: 'no socket, CIDR list: unknown', socket: 'unknown', xff: '203.0.113.7', trust: ['10.0.0.0/8'], client: 'unknown' },
  ];
  for (const c of cases) await t.test(c.name, () => assert.equal(forwardedClient(c.socket, c.xff, c.trust), c.client));
});

test('TRUST_PROXY accepts off/on, a number of hops, or a list of proxy addresses, CIDRs and names', async (t) => {
  const cases: { raw: string; value: TrustProxy }[] = [
    { raw: 'off', value: false },
    { raw: '0', value: false },
    { raw: 'on', value: true },
    { raw: 'TRUE', value: true },
    { raw: '1', value: true },
    { raw: '3', value: 3 },
    { raw: '10.0.0.0/8, 172.16.0.0/12 ,::1', value: ['10.0.0.0/8', '172.16.0.0/12', '::1'] },
    { raw: 'loopback,uniquelocal', value: ['loopback', 'uniquelocal'] },
    { raw: '203.0.113.7', value: ['203.0.113.7'] },
  ];
  for (const c of cases) await t.test(c.raw, () => assert.deepEqual(loadConfig({ TRUST_PROXY: c.raw }).trustProxy, c.value));
  await t.test('the flag too', () => assert.deepEqual(loadConfig({}, ['--trust-proxy', '10.1.0.0/16']).trustProxy, ['10.1.0.0/16']));
  assert.equal(loadConfig({}).trustProxy, false, 'off by default');
});

test('a bad TRUST_PROXY stops the start with a message naming it', async (t) => {
  for (const raw of ['maybe', '10.0.0.0/33', '10.0.0.1, proxy.internal', '300.1.1.1', '101', ',', '-1', '1.5']) {
    await t.test(raw, () => {
      assert.throws(() => loadConfig({ TRUST_PROXY: raw }), (err: unknown) => err instanceof ConfigError && err.message.startsWith('Invalid TRUST_PROXY:'));
    });
  }
});

test('behind one trusted proxy, the failed-auth limit blocks the real client, not the address it spoofs', async () => {
  const server = await liveServer(':memory:', { trustProxy: true, authFailureLimit: 3 });
  try {
    const badKey = (xff: string) =>
      fetch(`${server.url}/api/account`, { headers: { authorization: 'Bearer sk_wrong_key_guess_000000000000', 'x-forwarded-for': xff } });
    // The attacker (203.0.113.7, as the proxy appends it) puts a new address on the left each time.
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) statuses.push((await badKey(`198.51.100.${i}, 203.0.113.7`)).status);
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    const blocked = await badKey('192.0.2.99, 203.0.113.7');
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers.get('retry-after')) > 0);
    assert.deepEqual(await blocked.json(), { error: 1, message: 'Too Many API Requests.' });
    // The addresses it spoofed belong to other clients, who are not blocked.
    const victim = await badKey('198.51.100.1');
    assert.equal(victim.status, 401);
    assert.deepEqual(await victim.json(), { error: 1, message: 'A valid API key is required to use this service.' });
    assert.equal((await badKey('203.0.113.8')).status, 401);
  } finally {
    await server.close();
  }
});
