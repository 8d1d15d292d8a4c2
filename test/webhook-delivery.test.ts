import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../src/log.ts';
import type { Webhook } from '../src/resources/webhooks.ts';
import { FileOutbox } from '../src/store/file/file-outbox.ts';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import type { Delivery } from '../src/webhooks/deliveries.ts';
import { newDelivery } from '../src/webhooks/deliveries.ts';
import { recordRun } from '../src/webhooks/outcome.ts';
import { webhookSender } from '../src/webhooks/send.ts';
import type { AttemptResult, SendWebhook } from '../src/webhooks/send.ts';
import type { StoredRecord } from '../src/store/store.ts';
import { verifySignature } from '../src/webhooks/signature.ts';
import { allOf, eventually, openTestStore, testApp } from './helpers.ts';
import { receiverAccepts, startReceiver } from './webhook-receiver.ts';
import type { Receiver } from './webhook-receiver.ts';

const receivers: Receiver[] = [];
after(() => Promise.all(receivers.map((r) => r.close())));

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

/** An app whose webhooks may reach this machine, without rate limits; `hook` subscribes `url` to `events`. */
async function world(overrides = {}) {
  const w = await testApp({ rateLimit: 0, webhookPrivateTargets: true, ...overrides });
  const hook = async (url: string, events: string[] = ['*']) => {
    const r = await w.call('POST', '/api/webhooks', { body: { url, events } });
    assert.equal(r.status, 200, r.text);
    return r.body as { id: number; secret: string };
  };
  const link = async (n: number | string) => {
    const r = await w.call('POST', '/api/url/add', { body: { url: `https://example.com/${n}`, custom: `link-${n}` } });
    assert.equal(r.status, 200, r.text);
    return r.body as { id: number };
  };
  const deliveries = async (id: number, query = '') => (await w.call('GET', `/api/webhooks/${id}/deliveries${query}`)).body;
  return { ...w, hook, link, deliveries };
}

test('deliveries are signed, verified by the receiver, carry their ids, and come in order', async () => {
  const w = await world();
  const r = await receiver();
  const { id, secret } = await w.hook(`${r.url}/in?source=test`);
  for (let n = 1; n <= 5; n++) await w.link(n);
  await w.webhooks.drain();

  assert.deepEqual(r.received.map((x) => x.event.data.alias), ['link-1', 'link-2', 'link-3', 'link-4', 'link-5']);
  for (const x of r.received) {
    assert.equal(x.method, 'POST');
    assert.equal(x.path, '/in?source=test');
    assert.equal(x.headers['content-type'], 'application/json');
    assert.equal(x.headers['x-webhook-id'], String(id));
    assert.equal(x.headers['x-event-id'], x.event.id);
    assert.equal(x.headers['x-event-type'], 'link.created');
    assert.deepEqual(Object.keys(JSON.parse(x.body)), ['id', 'type', 'created', 'data']);
    assert.equal(x.event.created, '2026-11-21T10:00:00.000Z');
    assert.ok(receiverAccepts(x, secret), `the receiver verifies ${String(x.headers['x-signature'])}`);
    assert.ok(verifySignature(String(x.headers['x-signature']), x.body, secret, Math.floor(Date.now() / 1000)));
    // A changed body, another secret, or an old timestamp (a replay) does not verify.
    assert.ok(!receiverAccepts({ ...x, body: x.body.replace('link-', 'LINK-') }, secret));
    assert.ok(!receiverAccepts(x, `${secret}x`));
    assert.ok(!receiverAccepts(x, secret, Math.floor(Date.now() / 1000) + 301));
  }
  const log = await w.deliveries(id);
  assert.equal(log.data.result, 5);
  assert.deepEqual(log.data.deliveries.map((d: { status: string }) => d.status), ['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
  const [newest] = log.data.deliveries;
  assert.equal(newest.event, r.received[4]!.event.id);
  assert.equal(newest.attempts, 1);
  assert.equal(newest.last_attempt.status, 200);
  assert.equal(newest.last_attempt.body, 'ok');
  await w.webhooks.drain();
  assert.equal(r.received.length, 5, 'nothing is sent twice');
});

test('a failing delivery holds back its webhook\'s later events, not other webhooks\' ones, and is retried by the clock', async () => {
  const w = await world();
  let failing = true;
  const slow = await receiver((x) => (failing && x.event.data.alias === 'link-2' ? { status: 503, body: 'busy' } : {}));
  const fast = await receiver();
  await w.hook(slow.url, ['link.created']);
  await w.hook(fast.url, ['link.created']);
  for (let n = 1; n <= 4; n++) await w.link(n);
  await w.webhooks.drain();
  assert.deepEqual(slow.received.map((x) => x.event.data.alias), ['link-1', 'link-2']);
  assert.deepEqual(fast.received.map((x) => x.event.data.alias), ['link-1', 'link-2', 'link-3', 'link-4']);

  await w.webhooks.drain();
  assert.equal(slow.received.length, 2, 'not due again before its backoff');
  failing = false;
  w.clock.advance(30_000);
  await w.webhooks.drain();
  assert.deepEqual(slow.received.map((x) => x.event.data.alias), ['link-1', 'link-2', 'link-2', 'link-3', 'link-4']);
  assert.equal(slow.received[1]!.event.id, slow.received[2]!.event.id, 'a retry is the same event');
});

test('retries back off exponentially, then after 24 hours the webhook is turned off with the reason', async () => {
  const w = await world();
  const r = await receiver(() => ({ status: 500, body: `failure ${'x'.repeat(5000)}` }));
  const { id } = await w.hook(r.url);
  await w.link(1);
  await w.webhooks.drain();
  const started = w.clock.now();
  const due: number[] = [];
  for (let i = 0; i < 60 && (await w.call('GET', `/api/webhooks/${id}`)).body.data.active; i++) {
    const [d] = await allOf<Delivery>(w.store, 'deliveries');
    due.push(d!.nextAt - w.clock.now());
    w.clock.set(d!.nextAt - 1);
    await w.webhooks.drain();
    assert.equal(r.received.length, i + 1, 'not a moment before it is due');
    w.clock.set(d!.nextAt);
    await w.webhooks.drain();
  }
  assert.deepEqual(due.slice(0, 9), [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000], 'doubling from 30 s, at most an hour');
  assert.equal(w.clock.now() - started, 24 * 3_600_000, 'the last attempt is 24 hours after the first failure');
  const hook = (await w.call('GET', `/api/webhooks/${id}`)).body.data;
  assert.equal(hook.active, false);
  assert.match(hook.disabled.reason, /^Deliveries failed for 24 hours \(the last: HTTP 500\)/);
  const stored = (await allOf<Webhook>(w.store, 'webhooks'))[0]!;
  assert.equal(stored.active, false);

  const log = (await w.deliveries(id)).data.deliveries[0];
  assert.equal(log.status, 'failed');
  assert.equal(log.attempts, r.received.length);
  assert.equal(log.log.length, 10, 'the log keeps the last ten attempts');
  assert.equal(log.last_attempt.status, 500);
  assert.equal(log.last_attempt.error, 'HTTP 500');
  assert.equal(log.last_attempt.body.length, 1024, 'the answer is clipped');
  assert.equal((await w.deliveries(id, '?status=failed')).data.result, 1);
  assert.equal((await w.deliveries(id, '?status=pending')).data.result, 0);

  // Turned off, it is sent nothing; turned on again, what came meanwhile goes, in order.
  const sent = r.received.length;
  r.answer = () => ({});
  await w.link(2);
  w.clock.advance(86_400_000);
  await w.webhooks.drain();
  assert.equal(r.received.length, sent);
  await w.call('PUT', `/api/webhooks/${id}/update`, { body: { active: true } });
  await w.webhooks.drain();
  assert.deepEqual(r.received.slice(sent).map((x) => x.event.data.alias), ['link-2']);
});

test('a redirect is a failure and is not followed; a name resolving to a private address is refused at delivery', async () => {
  const w = await world();
  const target = await receiver();
  const redirecting = await receiver(() => ({ status: 302, headers: { location: `${target.url}/elsewhere` } }));
  const { id } = await w.hook(redirecting.url);
  await w.link(1);
  await w.webhooks.drain();
  assert.equal(redirecting.received.length, 1);
  assert.equal(target.received.length, 0);
  const attempt = (await w.deliveries(id)).data.deliveries[0].last_attempt;
  assert.equal(attempt.status, 302);
  assert.equal(attempt.error, 'HTTP 302: redirects are not followed');

  // WEBHOOK_PRIVATE_TARGETS off: a public-looking name that resolves to this machine is not sent to.
  const store = await openTestStore();
  const strict = await testApp({ rateLimit: 0 }, { store });
  const send = webhookSender({ timeoutMs: 2000, allowPrivate: false, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
  const dispatcher = new WebhookDispatcher({ store, config: strict.config, clock: strict.clock, log: silentLogger, send });
  const port = new URL(target.url).port;
  const made = await strict.call('POST', '/api/webhooks', { body: { url: `http://hooks.example.com:${port}/`, events: ['*'] } });
  assert.equal(made.status, 200, made.text);
  await strict.call('POST', '/api/url/add', { body: { url: 'https://example.com/' } });
  await dispatcher.drain();
  assert.equal(target.received.length, 0);
  const [d] = await allOf<Delivery>(store, 'deliveries');
  assert.equal(d!.log[0]!.error, 'refused: hooks.example.com is not a public address (WEBHOOK_PRIVATE_TARGETS=on allows private ones)');
  assert.equal(d!.state, 'pending', 'retried later: DNS may change');
});

test('the test endpoint sends a ping now; a delivery can be sent again', async () => {
  const w = await world();
  const r = await receiver();
  const { id, secret } = await w.hook(r.url, ['link.deleted']);
  const ping = await w.call('POST', `/api/webhooks/${id}/test`);
  assert.equal(ping.status, 202, ping.text);
  assert.match(ping.body.event, /^evt_/);
  await w.webhooks.drain();
  assert.equal(r.received.length, 1);
  assert.equal(r.received[0]!.event.type, 'webhook.ping');
  assert.equal(r.received[0]!.event.id, ping.body.event);
  assert.ok(receiverAccepts(r.received[0]!, secret));
  const log = (await w.deliveries(id)).data.deliveries;
  assert.deepEqual(log.map((d: { id: number; status: string; manual: boolean }) => [d.id, d.status, d.manual]), [[ping.body.id, 'delivered', true]]);

  const again = await w.call('POST', `/api/webhooks/${id}/deliveries/${ping.body.id}/redeliver`);
  assert.equal(again.status, 202, again.text);
  assert.equal(again.body.event, ping.body.event);
  await w.webhooks.drain();
  assert.deepEqual(r.received.map((x) => x.event.id), [ping.body.event, ping.body.event], 'the same event, sent again');
  assert.equal((await w.call('POST', `/api/webhooks/${id}/deliveries/999/redeliver`)).status, 404);

  // A ping fails once, without retries and without touching the webhook.
  r.answer = () => ({ status: 500 });
  await w.call('POST', `/api/webhooks/${id}/test`);
  await w.webhooks.drain();
  w.clock.advance(3_600_000);
  await w.webhooks.drain();
  assert.equal(r.received.length, 3);
  assert.equal((await w.deliveries(id, '?status=failed')).data.result, 1);
  assert.equal((await w.call('GET', `/api/webhooks/${id}`)).body.data.active, true);
  const bad = await w.call('GET', `/api/webhooks/${id}/deliveries?status=nope`);
  assert.equal(bad.status, 400);
});

test('a slow receiver holds up no request, and deliveries in flight are bounded', async () => {
  const w = await world({ webhookConcurrency: 2, webhookTimeout: 5 });
  let open = 0;
  let most = 0;
  // The first two deliveries are answered only once the creates below are done: a create that
  // waited for a delivery would end only at its 5 s timeout, when later deliveries would have
  // started (received > 2). No wall-clock bound, so a slow machine does not fail it.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow = await receiver((_, n) => {
    most = Math.max(most, ++open);
    if (n < 2) return { after: gate.then(() => void open--) };
    setTimeout(() => open--, 100);
    return { delayMs: 100 };
  });
  for (let n = 0; n < 3; n++) await w.hook(`${slow.url}/${n}`, ['link.created']);
  w.webhooks.start();
  await w.link(1);
  assert.ok(await eventually(() => slow.received.length >= 2, 3000));
  for (let n = 2; n <= 4; n++) await w.link(n);
  assert.equal(slow.received.length, 2, 'three creates done while both deliveries in flight hung, and no third one started');
  release();
  assert.ok(await eventually(() => slow.received.length === 3 * 4, 15_000), `${slow.received.length} of 12 delivered`);
  assert.equal(most, 2, 'at most WEBHOOK_CONCURRENCY in flight');
  // Its connections to the receiver are kept between deliveries, and closed when it stops.
  assert.ok(slow.open > 0 && slow.connections <= 3, `${slow.connections} connections for 12 deliveries`);
  await w.webhooks.stop();
  assert.ok(await eventually(() => slow.open === 0, 1000), `${slow.open} connections left open after the stop`);
});

/** A dispatcher of `w`'s store whose sends go to `send` (each answered 200 unless it says otherwise). */
function dispatcherOf(w: Awaited<ReturnType<typeof world>>, send: SendWebhook) {
  return new WebhookDispatcher({ store: w.store, config: w.config, clock: w.clock, log: silentLogger, send });
}
const ok: AttemptResult = { ok: true, status: 200, error: null, body: 'ok', ms: 1 };
const aliasOf = (body: string) => JSON.parse(body).data.alias as string;

test('a backlog goes out in runs of its queue: claimed a hundred at a time, in order, each delivered once', async () => {
  const w = await world();
  await w.hook('http://127.0.0.1:9/in', ['link.created']);
  const made = await w.call('POST', '/api/url/bulk', { body: { urls: Array.from({ length: 250 }, (_, n) => ({ url: `https://example.com/${n}`, custom: `run-${n}` })) } });
  assert.equal(made.status, 200, made.text);
  const claimed: number[] = [];
  const claim = w.store.outbox.claimDeliveries.bind(w.store.outbox);
  w.store.outbox.claimDeliveries = async (...args) => {
    const got = await claim(...args);
    if (got.length > 0) claimed.push(got.length);
    return got;
  };
  const sent: string[] = [];
  await dispatcherOf(w, async (_url, body) => {
    sent.push(aliasOf(body));
    return ok;
  }).drain();
  assert.deepEqual(sent, Array.from({ length: 250 }, (_, n) => `run-${n}`));
  assert.deepEqual(claimed, [100, 100, 50], 'three claims for 250 deliveries, not one each');
  const stored = await allOf<Delivery>(w.store, 'deliveries');
  assert.equal(stored.length, 250);
  assert.ok(stored.every((d) => d.state === 'delivered' && d.attempts === 1 && !d.lease), 'each kept delivered, once, its lease cleared');
});

test('a run starts no attempt after a second: its outcomes are kept before the rest of the queue is claimed again', async () => {
  const w = await world({ webhookTimeout: 5 });
  await w.hook('http://127.0.0.1:9/in', ['link.created']);
  for (let n = 1; n <= 5; n++) await w.link(n);
  let claims = 0;
  const claim = w.store.outbox.claimDeliveries.bind(w.store.outbox);
  w.store.outbox.claimDeliveries = async (...args) => {
    const got = await claim(...args);
    if (got.length > 0) claims++;
    return got;
  };
  // Each attempt takes 400 ms: five of them cannot fit in one run.
  const sent: { alias: string; claim: number; stored: string[] }[] = [];
  await dispatcherOf(w, async (_url, body) => {
    sent.push({ alias: aliasOf(body), claim: claims, stored: (await allOf<Delivery>(w.store, 'deliveries')).map((d) => d.state) });
    await new Promise((r) => setTimeout(r, 400));
    return ok;
  }).drain();
  assert.deepEqual(sent.map((s) => s.alias), ['link-1', 'link-2', 'link-3', 'link-4', 'link-5']);
  assert.ok(claims >= 2, `the run was cut (${claims} claims)`);
  // What the first run sent is kept delivered by the time the second run sends.
  const firstRun = sent.filter((s) => s.claim === 1).length;
  assert.ok(firstRun >= 1 && firstRun < 5);
  const second = sent.find((s) => s.claim === 2)!;
  assert.deepEqual(second.stored.slice(0, firstRun), Array(firstRun).fill('delivered'));
  assert.ok(second.stored.slice(firstRun).every((s) => s === 'pending'));
  assert.ok((await allOf<Delivery>(w.store, 'deliveries')).every((d) => d.state === 'delivered' && d.attempts === 1));
});

test('stopped during a run, the dispatcher keeps what it sent and gives back the rest at once, in order', async () => {
  const w = await world();
  await w.hook('http://127.0.0.1:9/in', ['link.created']);
  for (let n = 1; n <= 4; n++) await w.link(n);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const first: string[] = [];
  const stopping = dispatcherOf(w, async (_url, body) => {
    first.push(aliasOf(body));
    await gate;
    return ok;
  });
  const draining = stopping.drain();
  assert.ok(await eventually(() => first.length === 1, 3000));
  const stopped = stopping.stop();
  release();
  await stopped;
  await draining;
  assert.deepEqual(first, ['link-1'], 'no attempt starts once stopping');
  const stored = await allOf<Delivery>(w.store, 'deliveries');
  assert.deepEqual(stored.map((d) => [d.state, d.lease ?? null]), [['delivered', null], ['pending', null], ['pending', null], ['pending', null]], 'the rest given back, not leased until their lease would end');
  const next: string[] = [];
  await dispatcherOf(w, async (_url, body) => {
    next.push(aliasOf(body));
    return ok;
  }).drain();
  assert.deepEqual(next, ['link-2', 'link-3', 'link-4']);
});

test('a claim leases a queue\'s head with the due deliveries behind it; a run\'s outcomes are kept only while its lease holds', async () => {
  const w = await world();
  const { id: hook } = await w.hook('http://127.0.0.1:9/in', ['link.created']);
  const { id: other } = await w.hook('http://127.0.0.1:9/other', ['link.created']);
  const event = (n: number) => ({ id: `evt_run_${n}`, type: 'link.created', created: new Date(w.clock.now()).toISOString(), data: { n } });
  const at = w.clock.now();
  await w.store.transaction(async (tx) => {
    for (const [n, due] of [[1, at], [2, at], [3, at + 60_000], [4, at]] as const) await tx.insert('deliveries', newDelivery(1, hook, event(n), due));
    await tx.insert('deliveries', newDelivery(1, other, event(5), at));
  });
  const ids = (ds: readonly StoredRecord[]) => ds.map((d) => (d as Delivery).event.id);
  // The third is not due: the run stops before it (the fourth waits behind it). The other webhook's queue has its own run.
  const run = (await w.store.outbox.claimDeliveries(at, 60_000, 10, 100)) as Delivery[];
  assert.deepEqual(ids(run), ['evt_run_1', 'evt_run_2', 'evt_run_5']);
  assert.equal(new Set(run.map((d) => d.lease)).size, 1, 'one lease');
  assert.deepEqual(await w.store.outbox.claimDeliveries(at, 60_000, 10, 100), [], 'leased: not claimed again');

  // A lease that ran out is taken over (here with a shorter run); the first run's outcomes then change nothing.
  const short = (await w.store.outbox.claimDeliveries(at, 1, 1, 1)) as Delivery[];
  assert.deepEqual(short, []);
  await w.store.transaction(async (tx) => {
    for (const d of run) await tx.update('deliveries', d.id, { leaseUntil: 1 });
  });
  const taken = (await w.store.outbox.claimDeliveries(at, 60_000, 1, 1)) as Delivery[];
  assert.deepEqual(ids(taken), ['evt_run_1']);
  await recordRun({ store: w.store, clock: w.clock, log: silentLogger }, run.filter((d) => d.webhookId === hook).map((d) => ({ d, result: ok })), false);
  const after = new Map((await allOf<Delivery>(w.store, 'deliveries')).map((d) => [d.event.id, d]));
  assert.equal(after.get('evt_run_1')!.state, 'pending');
  assert.equal(after.get('evt_run_1')!.lease, taken[0]!.lease);
  assert.equal(after.get('evt_run_2')!.state, 'pending', 'what follows a delivery taken over is not kept either');
  assert.equal(after.get('evt_run_2')!.attempts, 0);
});

test('a run\'s outcomes: delivered, failed and due again after its backoff, and what was not sent given back at once', async () => {
  const w = await world();
  const { id: hook } = await w.hook('http://127.0.0.1:9/in', ['link.created']);
  const at = w.clock.now();
  await w.store.transaction(async (tx) => {
    for (const n of [1, 2, 3, 4]) await tx.insert('deliveries', newDelivery(1, hook, { id: `evt_out_${n}`, type: 'link.created', created: new Date(at).toISOString(), data: { n } }, at));
  });
  const run = (await w.store.outbox.claimDeliveries(at, 60_000, 10, 100)) as Delivery[];
  assert.equal(run.length, 4);
  const failed: AttemptResult = { ok: false, status: 503, error: 'HTTP 503', body: 'busy', ms: 1 };
  await recordRun({ store: w.store, clock: w.clock, log: silentLogger }, [{ d: run[0]!, result: ok, at: at + 5 }, { d: run[1]!, result: failed, at: at + 9 }, { d: run[2]! }, { d: run[3]! }], false);
  const after = new Map((await allOf<Delivery>(w.store, 'deliveries')).map((d) => [d.event.id, d]));
  const [one, two, three, four] = ['evt_out_1', 'evt_out_2', 'evt_out_3', 'evt_out_4'].map((id) => after.get(id)!);
  assert.deepEqual([one!.state, one!.attempts, one!.lease, one!.deliveredAt], ['delivered', 1, null, new Date(at + 5).toISOString()]);
  assert.deepEqual([two!.state, two!.attempts, two!.lease, two!.nextAt, two!.log.at(-1)!.status], ['pending', 1, null, at + 9 + 30_000, 503]);
  for (const d of [three!, four!]) assert.deepEqual([d.state, d.attempts, d.lease, d.leaseUntil], ['pending', 0, null, null], 'given back, not held until its lease runs out');
});

test('a webhook changed during a run: its new URL is used from the next delivery, and turned off or deleted, the rest of the run is not sent', async () => {
  const w = await world();
  const { id } = await w.hook('http://127.0.0.1:9/old', ['link.created']);
  for (let n = 1; n <= 6; n++) await w.link(n);
  const sent: [string, string][] = [];
  const dispatcher = dispatcherOf(w, async (url, body) => {
    sent.push([aliasOf(body), new URL(url).pathname]);
    // Each attempt ends a second after the one before, by the app's clock.
    w.clock.advance(1000);
    if (sent.length === 1) assert.equal((await w.call('PUT', `/api/webhooks/${id}/update`, { body: { url: 'http://127.0.0.1:9/new' } })).status, 200);
    if (sent.length === 3) assert.equal((await w.call('PUT', `/api/webhooks/${id}/update`, { body: { active: false } })).status, 200);
    return ok;
  });
  const started = w.clock.now();
  await dispatcher.drain();
  assert.deepEqual(sent, [['link-1', '/old'], ['link-2', '/new'], ['link-3', '/new']]);
  const stored = await allOf<Delivery>(w.store, 'deliveries');
  assert.deepEqual(stored.map((d) => [d.state, d.lease ?? null]), [['delivered', null], ['delivered', null], ['delivered', null], ['pending', null], ['pending', null], ['pending', null]]);
  assert.deepEqual(stored.slice(0, 3).map((d) => Date.parse(d.log[0]!.at) - started), [1000, 2000, 3000], 'each attempt stamped when it ended, not when the run was kept');

  // On again, the rest go in order; deleted during a run, nothing more is sent.
  assert.equal((await w.call('PUT', `/api/webhooks/${id}/update`, { body: { active: true } })).status, 200);
  const after: string[] = [];
  await dispatcherOf(w, async (_url, body) => {
    after.push(aliasOf(body));
    if (after.length === 1) assert.equal((await w.call('DELETE', `/api/webhooks/${id}/delete`)).status, 200);
    return ok;
  }).drain();
  assert.deepEqual(after, ['link-4']);
  assert.equal((await allOf<Delivery>(w.store, 'deliveries')).length, 0, 'its deliveries went with it');
});

test('claims after a long delivered history find every new delivery, past gaps, far-apart ids and ids put below them', async () => {
  const w = await world();
  const { id: kept } = await w.hook('http://127.0.0.1:9/kept', ['link.created']);
  const { id: gone } = await w.hook('http://127.0.0.1:9/gone', ['link.created']);
  const made = await w.call('POST', '/api/url/bulk', { body: { urls: Array.from({ length: 300 }, (_, n) => ({ url: `https://example.com/${n}`, custom: `past-${n}` })) } });
  assert.equal(made.status, 200, made.text);
  const sent: string[] = [];
  const dispatcher = dispatcherOf(w, async (url, body) => {
    sent.push(`${new URL(url).pathname} ${aliasOf(body)}`);
    return ok;
  });
  await dispatcher.drain();
  assert.equal(sent.length, 600);
  // The other webhook's deliveries go with it: every other id of the history is a gap now.
  assert.equal((await w.call('DELETE', `/api/webhooks/${gone}/delete`)).status, 200);
  sent.length = 0;
  await w.link('after-1');
  await w.link('after-2');
  await dispatcher.drain();
  assert.deepEqual(sent, ['/kept link-after-1', '/kept link-after-2']);
  // A delivery stored under an id of its own far past the others (as a put may) is found too.
  await w.store.transaction(async (tx) => {
    await tx.put('deliveries', { ...newDelivery(1, kept, { id: 'evt_far', type: 'link.created', created: new Date(w.clock.now()).toISOString(), data: { alias: 'far' } }, w.clock.now()), id: 1_000_000 });
  });
  sent.length = 0;
  await dispatcher.drain();
  assert.deepEqual(sent, ['/kept far']);
  // And one put under a low id that was free (its delivery gone), below every pending one met so far.
  const [first] = await allOf<Delivery>(w.store, 'deliveries');
  await w.store.transaction(async (tx) => {
    await tx.remove('deliveries', first!.id);
    await tx.put('deliveries', { ...newDelivery(1, kept, { id: 'evt_low', type: 'link.created', created: new Date(w.clock.now()).toISOString(), data: { alias: 'low' } }, w.clock.now()), id: first!.id });
  });
  sent.length = 0;
  await dispatcher.drain();
  assert.deepEqual(sent, ['/kept low']);
});

test('a webhook turned off keeps queueing without making each claim look at its queue, nor at what was delivered; on again, its queue goes, in order', async () => {
  const w = await world();
  const { id: off } = await w.hook('http://127.0.0.1:9/off', ['link.created']);
  const sent: string[] = [];
  const dispatcher = dispatcherOf(w, async (url, body) => {
    sent.push(`${new URL(url).pathname} ${aliasOf(body)}`);
    return ok;
  });
  const turn = async (active: boolean) => assert.equal((await w.call('PUT', `/api/webhooks/${off}/update`, { body: { active } })).status, 200);
  await turn(false);
  for (const n of [1, 2, 3]) await w.link(`held-${n}`);
  await dispatcher.drain();
  assert.equal(sent.length, 0, 'held: its webhook is off');
  await w.hook('http://127.0.0.1:9/on', ['link.created']);
  const made = await w.call('POST', '/api/url/bulk', { body: { urls: Array.from({ length: 300 }, (_, n) => ({ url: `https://example.com/${n}`, custom: `busy-${n}` })) } });
  assert.equal(made.status, 200, made.text);
  await dispatcher.drain();
  assert.equal(sent.length, 300);
  assert.ok(sent.every((x) => x.startsWith('/on ')));

  // Claims now: the new delivery of each webhook and each queue's front; not the 300 delivered, nor the 303 held.
  const files = w.store.outbox instanceof FileOutbox ? w.store.outbox : null;
  const looks: number[] = [];
  if (files) {
    const fronts = files.pending.fronts.bind(files.pending);
    files.pending.fronts = () => {
      looks.push(files.pending.looked);
      return fronts();
    };
  }
  await w.link('new-1');
  await dispatcher.drain();
  assert.deepEqual(sent.slice(300), ['/on link-new-1']);
  if (files) {
    looks.push(files.pending.looked);
    assert.ok(looks.length >= 2 && Math.max(...looks) <= 6, `deliveries each claim looked at: ${looks.join(', ')}`);
  }

  await turn(true);
  await dispatcher.drain();
  const offSent = sent.filter((x) => x.startsWith('/off '));
  assert.deepEqual(offSent, ['link-held-1', 'link-held-2', 'link-held-3', ...Array.from({ length: 300 }, (_, n) => `busy-${n}`), 'link-new-1'].map((a) => `/off ${a}`));
  assert.deepEqual((await allOf<Delivery>(w.store, 'deliveries')).filter((d) => d.state !== 'delivered'), []);
});
