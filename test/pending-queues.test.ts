import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import type { StoredRecord } from '../src/store/store.ts';
import { newDelivery } from '../src/webhooks/deliveries.ts';

const delivery = (webhookId: number, n: number) => newDelivery(1, webhookId, { id: `evt_${webhookId}_${n}`, type: 'link.created', created: '', data: { n } }, 0);
const ns = (ds: Iterable<StoredRecord>) => [...ds].map((d) => (d.event as { data: { n: number } }).data.n);

test('pending queues: each queue\'s front, lowest first, and what is behind it in id order, as deliveries are done, removed and added', async () => {
  const store = await FileStore.open({ dir: ':memory:', collections: storeSchema(RESOURCES) });
  const queues = store.outbox.pending;
  await store.transaction(async (tx) => {
    await tx.insertMany('deliveries', Array.from({ length: 3000 }, (_, n) => delivery(1, n)));
    await tx.insertMany('deliveries', [delivery(2, 0), delivery(2, 1)]);
  });
  const fronts = () => queues.fronts().map((f) => [f.queue, ns([f.head])[0]]);
  assert.deepEqual(fronts(), [['w1', 0], ['w2', 0]]);
  assert.equal(queues.looked, 3002 + 2, 'the first call reads what was inserted, then each front');
  assert.deepEqual(ns(queues.behind('w2')), [1]);

  // The first 2,000 of queue 1 delivered (its front passes them, and gives up their places), one further on removed.
  await store.transaction(async (tx) => {
    for (let id = 1; id <= 2000; id++) await tx.update('deliveries', id, { state: 'delivered' });
    await tx.remove('deliveries', 2002);
    await tx.update('deliveries', 3001, { state: 'failed' });
  });
  assert.deepEqual(fronts(), [['w1', 2000], ['w2', 1]]);
  assert.deepEqual(ns(queues.behind('w1')).slice(0, 3), [2002, 2003, 2004]);
  assert.equal(ns(queues.behind('w1')).length, 998);
  assert.deepEqual(fronts(), [['w1', 2000], ['w2', 1]]);
  assert.ok(queues.looked <= 4, `looked at ${queues.looked}: only the fronts`);

  // New ones join the back of their queue (a new queue too); a queue with none left goes.
  await store.transaction(async (tx) => {
    await tx.insertMany('deliveries', [delivery(1, 5000), delivery(3, 0)]);
  });
  assert.deepEqual(fronts(), [['w1', 2000], ['w2', 1], ['w3', 0]]);
  assert.equal(ns(queues.behind('w1')).at(-1), 5000);
  // Lowest front first, whichever queue came first.
  await store.transaction(async (tx) => {
    for (let id = 2001; id <= 3000; id++) await tx.update('deliveries', id, { state: 'delivered' });
  });
  assert.deepEqual(fronts(), [['w2', 1], ['w1', 5000], ['w3', 0]]);
  await store.transaction((tx) => tx.update('deliveries', 3002, { state: 'delivered' }));
  assert.deepEqual(fronts(), [['w1', 5000], ['w3', 0]]);
  await store.close();
});
