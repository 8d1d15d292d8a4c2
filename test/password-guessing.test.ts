import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from './helpers.ts';

const form = (password: string, ip: string, cookie?: string) => ({
  key: null,
  raw: new URLSearchParams({ password }).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip, ...(cookie ? { cookie } : {}) },
});

/** Seconds from the fixed clock to the end of its aligned window of `windowSeconds`. */
const toWindowEnd = (now: number, windowSeconds: number) => Math.ceil((now - (now % (windowSeconds * 1000)) + windowSeconds * 1000) / 1000) - Math.floor(now / 1000);

async function protectedLink(overrides = {}) {
  const app = await testApp({ trustProxy: true, rateLimit: 0, ...overrides });
  const made = await app.call('POST', '/api/url/add', { body: { url: 'https://example.com/vault', custom: 'vault', password: 'right one' } });
  assert.equal(made.status, 200, made.text);
  const clicks = async () => (await app.call('GET', `/api/url/${made.body.id}`)).body.data.clicks as number;
  return { ...app, id: made.body.id as number, clicks, guess: (password: string, ip: string) => app.call('POST', '/vault', form(password, ip)) };
}

test('link passwords: 10 wrong from one IP, then 429 with Retry-After for that IP, the right password included', async () => {
  const { guess, clock, clicks } = await protectedLink();
  const wrong = [];
  for (let i = 0; i < 10; i++) wrong.push((await guess(`guess-${i}`, '198.51.100.7')).status);
  assert.deepEqual(wrong, Array(10).fill(403), 'PASSWORD_ATTEMPT_LIMIT defaults to 10 per IP');
  const blocked = await guess('guess-10', '198.51.100.7');
  assert.equal(blocked.status, 429);
  assert.match(blocked.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(blocked.text, /Too many attempts/);
  assert.equal(Number(blocked.headers.get('retry-after')), toWindowEnd(clock.now(), 300), 'PASSWORD_ATTEMPT_WINDOW defaults to 300 s');
  const right = await guess('right one', '198.51.100.7');
  assert.equal(right.status, 429, 'the right password is refused too while the IP is blocked');
  assert.equal(right.headers.get('set-cookie'), null);
  const elsewhere = await guess('right one', '198.51.100.8');
  assert.equal(elsewhere.status, 200, 'another IP is not blocked');
  assert.match(elsewhere.headers.get('set-cookie') ?? '', /^lp_/);
  assert.equal(await clicks(), 0, 'no attempt counts as a click');
  clock.advance(300_000);
  assert.equal((await guess('right one', '198.51.100.7')).status, 200, 'the block ends with the window');
});

test('link passwords: an IPv6 client is counted per /64, so rotating addresses does not help', async () => {
  const { guess } = await protectedLink({ passwordAttemptLimit: 3 });
  const statuses = [];
  for (let i = 1; i <= 4; i++) statuses.push((await guess('nope', `2001:db8:aa:bb::${i}`)).status);
  assert.deepEqual(statuses, [403, 403, 403, 429]);
  assert.equal((await guess('nope', '2001:db8:aa:cc::1')).status, 403, 'another /64 is another client');
});

test('link passwords: wrong ones are limited per link across IPs; a signed-in visitor still passes; 0 disables', async () => {
  const { guess, call, id, clock } = await protectedLink({ passwordAttemptLimit: 100, passwordAttemptLinkLimit: 3 });
  const signedIn = await guess('right one', '192.0.2.1');
  assert.equal(signedIn.status, 200);
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  const statuses = [];
  for (let i = 2; i <= 5; i++) statuses.push((await guess('nope', `192.0.2.${i}`)).status);
  assert.deepEqual(statuses, [403, 403, 403, 429], 'the right password before did not count');
  const fresh = await guess('right one', '192.0.2.99');
  assert.equal(fresh.status, 429, 'a blocked link refuses every attempt until the window ends');
  assert.equal(Number(fresh.headers.get('retry-after')), toWindowEnd(clock.now(), 300));
  const visit = await call('GET', '/vault', { key: null, headers: { cookie } });
  assert.deepEqual([visit.status, visit.headers.get('location')], [302, 'https://example.com/vault'], 'a visitor who already gave the password is not blocked');
  const other = await call('POST', '/api/url/add', { body: { url: 'https://example.com/other', custom: 'other', password: 'x' } });
  assert.equal((await call('POST', '/other', form('nope', '192.0.2.50'))).status, 403, 'other links have their own count');
  assert.ok(other.body.id > id);

  const off = await protectedLink({ passwordAttemptLimit: 0, passwordAttemptLinkLimit: 0 });
  for (let i = 0; i < 30; i++) assert.equal((await off.guess('nope', '192.0.2.1')).status, 403);
  assert.equal((await off.guess('right one', '192.0.2.1')).status, 200);
});

test('stats page passwords are limited per website across IPs; the owner\'s valid key always signs in', async () => {
  const app = await testApp({ trustProxy: true, rateLimit: 0, analyticsRateLimit: 0, passwordAttemptLimit: 100, passwordAttemptLinkLimit: 3 });
  const alice = await app.makeUser('alice');
  for (const body of [{ domain: 'secret.example.com', privacy: 2, password: 'hunter22' }, { domain: 'private.example.com', privacy: 1 }]) {
    assert.equal((await app.call('POST', '/api/v1/websites', { key: alice.key, body })).status, 201);
  }
  const signIn = (domain: string, fields: Record<string, string>, ip: string) =>
    app.call('POST', `/stats/${domain}`, { key: null, raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip } });
  const statuses = [];
  for (let i = 1; i <= 4; i++) statuses.push((await signIn('secret.example.com', { password: 'nope' }, `203.0.113.${i}`)).status);
  assert.deepEqual(statuses, [401, 401, 401, 429]);
  const right = await signIn('secret.example.com', { password: 'hunter22' }, '203.0.113.77');
  assert.equal(right.status, 429, 'the right password waits for the window too');
  assert.equal(Number(right.headers.get('retry-after')), toWindowEnd(app.clock.now(), 300));
  assert.match(right.text, /Too many failed sign-ins. Try again in 5 minutes\./);

  const bad = [];
  for (let i = 1; i <= 4; i++) bad.push((await signIn('private.example.com', { key: `sk_not_a_key_${i}` }, '203.0.113.9')).status);
  assert.deepEqual(bad, [401, 401, 401, 429], 'bad keys on the owner gate count like wrong passwords');
  const owner = await signIn('private.example.com', { key: alice.key }, '203.0.113.9');
  assert.equal(owner.status, 303, 'the owner\'s key passes even from a blocked IP, on a blocked website');
  assert.match(owner.headers.get('set-cookie') ?? '', /^pa_stats_/);
});
