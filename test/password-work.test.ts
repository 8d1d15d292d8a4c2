import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, passwordWork, verifyPassword } from '../src/auth/passwords.ts';
import { BusyError, Semaphore } from '../src/auth/semaphore.ts';
import { fixedClock } from '../src/clock.ts';
import { PasswordAttempts } from '../src/http/password-attempts.ts';
import { FixedWindowLimiter, clientBucket } from '../src/http/rate-limit.ts';
import { testApp } from './helpers.ts';

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

test('the semaphore never runs more than its limit, runs every task in arrival order, and bounds only refusable waiters', async () => {
  const sem = new Semaphore(2, 3);
  let now = 0;
  let peak = 0;
  const started: number[] = [];
  const gates = Array.from({ length: 8 }, gate);
  const task = (i: number) => async () => {
    started.push(i);
    peak = Math.max(peak, ++now);
    await gates[i]!.promise;
    now--;
    return i * 10;
  };
  const runs = [0, 1, 2, 3, 4].map((i) => sem.run(task(i), true));
  assert.deepEqual([sem.inFlight, sem.queued], [2, 3]);
  await assert.rejects(sem.run(task(5), true), BusyError, 'a refusable task finds the queue full');
  const patient = sem.run(task(6));
  assert.equal(sem.queued, 4, 'a task that is not refusable always waits its turn');
  for (const i of [1, 0, 2, 3, 4, 6]) {
    gates[i]!.open();
    await new Promise((r) => setImmediate(r));
  }
  assert.deepEqual(await Promise.all([...runs, patient]), [0, 10, 20, 30, 40, 60]);
  assert.deepEqual(started, [0, 1, 2, 3, 4, 6], 'in arrival order');
  assert.equal(peak, 2);
  assert.deepEqual([sem.inFlight, sem.queued], [0, 0]);
  await assert.rejects(sem.run(() => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(sem.inFlight, 0, 'a failing task gives its slot back');
});

test('every scrypt of the process goes through passwordWork: at most 2 at once, results unchanged', async () => {
  const hash = await hashPassword('right');
  assert.equal(passwordWork.inFlight, 0);
  const checks = ['right', 'wrong', 'right', 'nope', 'right', 'x'].map((p) => verifyPassword(p, hash));
  const hashing = hashPassword('another');
  assert.deepEqual([passwordWork.inFlight, passwordWork.queued], [2, 5]);
  assert.deepEqual(await Promise.all(checks), [true, false, true, false, true, false]);
  assert.equal(await verifyPassword('another', await hashing), true);
  assert.deepEqual([passwordWork.inFlight, passwordWork.queued], [0, 0]);
});

test('a full password queue: checks answer 503 with Retry-After (page or API), hashing waits, nothing is lost', async () => {
  const { call } = await testApp({ trustProxy: true, rateLimit: 0 });
  const made = await call('POST', '/api/url/add', { body: { url: 'https://example.com/v', custom: 'vault', password: 'pw' } });
  assert.equal(made.status, 200);
  const hold = gate();
  const holders = Array.from({ length: passwordWork.limit + passwordWork.maxWaiting }, () => passwordWork.run(() => hold.promise));
  const busy = await call('POST', '/vault', { key: null, raw: 'password=pw', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.1' } });
  assert.equal(busy.status, 503);
  assert.equal(busy.headers.get('retry-after'), '1');
  assert.match(busy.text, /busy checking passwords/);
  const api = await call('POST', '/api/url/add', { body: { url: 'https://example.com/v', password: 'pw' } });
  assert.deepEqual([api.status, api.body.error, api.headers.get('retry-after')], [503, 1, '1'], 'create-or-return compares the password: busy too');
  const hashing = call('POST', '/api/url/add', { body: { url: 'https://example.com/new', custom: 'newone', password: 'pw2' } });
  hold.open();
  await Promise.all(holders);
  assert.equal((await hashing).status, 200, 'hashing waited for its turn');
  const after = await call('POST', '/vault', { key: null, raw: 'password=pw', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.1' } });
  assert.equal(after.status, 200, 'a busy answer did not count as a wrong password');
});

test('password attempts: concurrent guesses cannot overshoot the limit; right or unchecked ones are not counted', async () => {
  const clock = fixedClock('2026-11-21T10:00:00Z');
  const attempts = new PasswordAttempts({ passwordAttemptLimit: 3, passwordAttemptLinkLimit: 0, passwordAttemptWindow: 60 }, clock);
  const hold = gate();
  const slow = (right: boolean) => async () => (await hold.promise, right);
  const outcomes = Array.from({ length: 6 }, () => attempts.attempt('10.0.0.1', 'link:1', slow(false)));
  hold.open();
  assert.deepEqual((await Promise.all(outcomes)).map((o) => o.kind), ['wrong', 'wrong', 'wrong', 'blocked', 'blocked', 'blocked']);

  const other = new PasswordAttempts({ passwordAttemptLimit: 2, passwordAttemptLinkLimit: 0, passwordAttemptWindow: 60 }, clock);
  for (let i = 0; i < 5; i++) assert.equal((await other.attempt('10.0.0.2', 'link:1', async () => true)).kind, 'right');
  assert.deepEqual(await other.attempt('10.0.0.2', 'link:1', async () => Promise.reject(new BusyError('full'))), { kind: 'busy', retryAfter: 1 });
  await assert.rejects(other.attempt('10.0.0.2', 'link:1', async () => Promise.reject(new Error('disk'))), /disk/);
  assert.equal(other.blockedFor('10.0.0.2', 'link:1'), 0, 'none of these counted');
  assert.equal((await other.attempt('10.0.0.2', 'link:1', async () => false)).kind, 'wrong');
  assert.equal((await other.attempt('10.0.0.2', 'link:1', async () => false)).kind, 'wrong');
  assert.deepEqual(await other.attempt('10.0.0.2', 'link:1', async () => true), { kind: 'blocked', retryAfter: 60 });
});

test('the limiter takes back a count; clients are counted per IPv4 address or IPv6 /64', () => {
  const clock = fixedClock(60_000 * 1000);
  const l = new FixedWindowLimiter(1, 60_000, clock);
  l.hit('k');
  assert.equal(l.blocked('k'), true);
  l.undo('k');
  assert.equal(l.blocked('k'), false);
  l.undo('never-seen');
  l.hit('k');
  l.hit('k');
  l.undo('k');
  assert.equal(l.blocked('k'), true);
  assert.equal(l.windowEnd(), 60_060);
  const cases: [string, string][] = [
    ['203.0.113.5', '203.0.113.5'],
    ['::ffff:203.0.113.5', '203.0.113.5'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['unknown', 'unknown'],
  ];
  for (const [ip, bucket] of cases) assert.equal(clientBucket(ip), bucket, ip);
});
