/**
 * PostgreSQL's rate windows count many keys' hits in one statement while others are under way
 * (rate-windows.ts): exact counts per key, a key's second hit in a later statement, far fewer
 * statements than hits; the slices handed back in one turn in one statement, never deadlocking
 * with another process's hits; and a hit waiting in line is answered at its deadline, not after the
 * statements ahead of it. The database part runs in the PostgreSQL pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { honourStoreDeadlines, withStoreDeadline } from '../src/store/deadline.ts';
import { PgRateWindows } from '../src/store/postgres/rate-windows.ts';
import type { Db } from '../src/store/postgres/reads.ts';
import { openTestStore, secondStoreOf, TEST_BACKEND } from './backend.ts';

// The deadlines themselves are tested here, without a PostgreSQL store open in this process (which turns them on).
honourStoreDeadlines();

test('200 quiet keys hit at once: each counted once, in far fewer statements; again: each at 2; one key twice: 1 then 2', { skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL pass only' }, async () => {
  const store = await openTestStore();
  const windows = store.windows as PgRateWindows;
  assert.ok(windows instanceof PgRateWindows);
  const endsAt = Date.now() + 60_000;
  const keys = Array.from({ length: 200 }, (_, i) => `batch:${i}`);
  const first = await Promise.all(keys.map((k) => windows.hit(k, endsAt)));
  assert.deepEqual(first.map((c) => c.count), keys.map(() => 1));
  assert.ok(first.every((c) => Number(c.endsAt) === endsAt));
  const sent = windows.statements;
  assert.ok(sent < 50, `${sent} statements for 200 hits`);
  const second = await Promise.all(keys.map((k) => windows.hit(k, endsAt, 2)));
  assert.deepEqual(second.map((c) => c.count), keys.map(() => 3));
  const twice = await Promise.all([windows.hit('batch:same', endsAt), windows.hit('batch:other', endsAt), windows.hit('batch:same', endsAt)]);
  assert.deepEqual(twice.map((c) => c.count).sort(), [1, 1, 2]);
  assert.deepEqual([twice[0]!.count, twice[2]!.count].sort(), [1, 2]);
});

test('give-backs of one turn go in one statement: only into the window they were leased from, never below 0, the same key summed', { skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL pass only' }, async () => {
  const store = await openTestStore();
  const windows = store.windows as PgRateWindows;
  const endsAt = Date.now() + 60_000;
  const keys = Array.from({ length: 100 }, (_, i) => `back:${i}`);
  await Promise.all(keys.map((k) => windows.hit(k, endsAt, 10)));
  const before = windows.giveBackStatements;
  await Promise.all([
    ...keys.map((k) => windows.giveBack(k, endsAt, 3)),
    windows.giveBack('back:0', endsAt, 2), // summed with its first: 10 - 5
    windows.giveBack('back:1', endsAt - 60_000, 4), // an earlier window: not the stored one
    windows.giveBack('back:2', endsAt, 50), // more than counted: 0, not below
    windows.giveBack('back:none', endsAt, 5), // no row: nothing made
  ]);
  assert.equal(windows.giveBackStatements - before, 1);
  const counts = await Promise.all(keys.map((k) => windows.hit(k, endsAt, 0)));
  assert.deepEqual(counts.slice(0, 4).map((c) => c.count), [5, 7, 0, 7]);
  assert.ok(counts.slice(3).every((c) => c.count === 7));
  assert.equal((await windows.hit('back:none', endsAt, 0)).count, 0, 'a give-back without a row made none');
  // Another process's hits on the same keys, while this one hands back in the other order: a deadlock would fail one of them.
  const other = (await secondStoreOf(store)).windows as PgRateWindows;
  for (let round = 0; round < 20; round++) {
    await Promise.all([
      ...[...keys].reverse().map((k) => windows.giveBack(k, endsAt, 1)),
      ...keys.map((k) => other.hit(k, endsAt, 1)),
    ]);
  }
  const after = await Promise.all(keys.map((k) => windows.hit(k, endsAt, 0)));
  assert.ok(after.slice(3).every((c) => c.count === 7), 'each round: one given back, one hit');
});

test('a hit waiting behind statements that do not answer is refused at its deadline', async () => {
  const held: Array<() => void> = [];
  let sent = 0;
  const silent: Db = (() => {
    sent++;
    return new Promise((resolve) => held.push(() => resolve({ rows: [{ n: 1, ends_at: 0, key: 'x' }] } as never)));
  }) as Db;
  const windows = new PgRateWindows(silent);
  const endsAt = Date.now() + 60_000;
  // Two statements go (the most under way at once); the third key waits in line.
  const ahead = ['a', 'b'].map((k) => withStoreDeadline(60_000, () => windows.hit(k, endsAt)));
  const started = Date.now();
  const waiting = withStoreDeadline(100, () => windows.hit('e', endsAt));
  await assert.rejects(waiting, /DATABASE_TIMEOUT/);
  assert.ok(Date.now() - started < 5000);
  assert.equal(sent, 2, 'the waiting hit was never sent');
  for (const release of held) release();
  await Promise.allSettled(ahead);
});
