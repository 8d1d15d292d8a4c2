/**
 * One claim of webhook deliveries on the JSON store (in memory) when N delivered deliveries are kept
 * before 5 pending ones (a busy server keeps EVENT_RETENTION_DAYS of them): ms per claim, 5 claims,
 * each after the last one's leases were given back (a write, as every claim and outcome is).
 * --held M: first M deliveries of a webhook turned off (pending for days, as a server keeps them).
 *   node --import tsx bench/outbox-claim.ts [N] [--held M] [--checkout DIR]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { checkout: { type: 'string' }, held: { type: 'string', default: '0' } }, allowPositionals: true });
const root = resolve(values.checkout ?? new URL('..', import.meta.url).pathname);
const { FileStore } = await import(`${root}/src/store/file/file-store.ts`);
const { RESOURCES, storeSchema } = await import(`${root}/src/resources/table.ts`);
const { newDelivery } = await import(`${root}/src/webhooks/deliveries.ts`);

const N = Number(positionals[0] ?? 200_000);
const store = await FileStore.open({ dir: ':memory:', collections: storeSchema(RESOURCES) });
await store.transaction(async (tx: any) => {
  await tx.put('users', { id: 1, email: 'a@example.com', username: 'a', keyHash: 'k' });
  await tx.put('webhooks', { id: 1, userId: 1, url: 'http://127.0.0.1:9/', events: ['*'], active: true });
  await tx.put('webhooks', { id: 2, userId: 1, url: 'http://127.0.0.1:9/off', events: ['*'], active: false });
});
const HELD = Number(values.held);
for (let b = 0; b < HELD; b += 10_000) {
  await store.transaction(async (tx: any) => {
    await tx.insertMany('deliveries', Array.from({ length: Math.min(10_000, HELD - b) }, (_, i) => newDelivery(1, 2, { id: `evt_held_${b + i}`, type: 'link.created', created: '', data: {} }, 1)));
  });
}
for (let b = 0; b < N; b += 10_000) {
  await store.transaction(async (tx: any) => {
    const batch = Array.from({ length: Math.min(10_000, N - b) }, (_, i) => {
      const d = newDelivery(1, 1, { id: `evt_${b + i}`, type: 'link.created', created: '', data: {} }, 1);
      return b + i < N - 5 ? { ...d, state: 'delivered' } : d;
    });
    await tx.insertMany('deliveries', batch);
  });
}
const times: string[] = [];
for (let r = 0; r < 5; r++) {
  const t = performance.now();
  const got = await store.outbox.claimDeliveries(10, 60_000, 8, 100);
  times.push(`${(performance.now() - t).toFixed(1)} ms (${got.length})`);
  await store.transaction(async (tx: any) => {
    for (const d of got) await tx.update('deliveries', d.id, { lease: null, leaseUntil: null });
  });
}
console.log(`${root}: a claim after ${HELD > 0 ? `${HELD} held, then ` : ''}${N} delivered: ${times.join(', ')}`);
await store.close();
