/**
 * Proofs of one domain's ownership racing on PostgreSQL (website-ownership.ts, takeOverDomain):
 * four transactions, on two stores of one schema (two processes), all wait for the row of the
 * website receiving the domain's events, then go at once. Each takes the events in turn from the
 * one before it, none refused by the receiving index (a refusal would be a ConflictError, and the
 * API runs such a write at most three times: a full run's racer once answered 503).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { takeOverDomain, receivingWebsite } from '../src/analytics/website-ownership.ts';
import type { Website } from '../src/analytics/websites.ts';
import { openTestStore, secondStoreOf, TEST_BACKEND, underRowLock } from './backend.ts';

test('four proofs of one domain waiting on its receiving website all take the events in turn, none refused', { skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL pass only' }, async () => {
  const first = await openTestStore();
  const second = await secondStoreOf(first);
  const users = await first.transaction(async (tx) => Promise.all(Array.from({ length: 5 }, (_, i) => tx.insert('users', { username: `p${i}`, email: `p${i}@example.com`, keyHash: `h${i}` }))));
  const sites = await first.transaction(async (tx) => {
    const made = [];
    for (const [i, u] of users.entries()) made.push((await tx.insert('websites', { userId: u.id, domain: 'takeover.test', receives: i === 0 })) as unknown as Website);
    return made;
  });
  const holder = sites[0]!;
  const provers = sites.slice(1);
  const results = await underRowLock(first, 'websites', holder.id, provers.length, () =>
    Promise.allSettled(provers.map((site, i) => (i % 2 ? second : first).transaction((tx) => takeOverDomain<Website>(tx, site.id, `2026-11-27T10:00:0${i}.000000Z`)))),
  );
  assert.deepEqual(results.map((r) => r.status), provers.map(() => 'fulfilled'), results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')).join('; '));
  const receiving = (await first.find<Website>('websites', { limit: 10 })).items.filter((w) => w.receives !== false);
  assert.equal(receiving.length, 1);
  assert.equal((await receivingWebsite<Website>(first, 'takeover.test'))?.id, receiving[0]!.id);
  assert.ok(provers.some((p) => p.id === receiving[0]!.id), 'one of the proofs holds them');
});
