import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { FAKE_ADMIN_KEY, startFakeServer } from '../src/fake/index.ts';
import { eventually } from './helpers.ts';
import { receiverAccepts, startReceiver } from './webhook-receiver.ts';
import type { Receiver } from './webhook-receiver.ts';

const receivers: Receiver[] = [];
after(() => Promise.all(receivers.map((r) => r.close())));

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

async function api(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${FAKE_ADMIN_KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

test('the fake delivers webhooks to a receiver on this machine, and its clock drives the retries', async () => {
  const r = await startReceiver((_x, n) => (n === 1 ? { status: 500 } : {}));
  receivers.push(r);
  const fake = await startFakeServer();
  try {
    // Test mode lets webhooks reach private and loopback addresses (WEBHOOK_PRIVATE_TARGETS).
    const hook = await api(fake.url, 'POST', '/api/webhooks', { url: `${r.url}/hook`, events: ['link.created', 'link.clicked'] });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    await api(fake.url, 'POST', '/api/url/add', { url: 'https://example.com/', custom: 'faked' });
    await fake.deliverWebhooks();
    assert.deepEqual(r.received.map((x) => x.event.type), ['link.created']);
    assert.equal(r.received[0]!.event.created, '2026-01-01T00:00:00.000Z', 'events are dated by the fake clock');
    assert.ok(receiverAccepts(r.received[0]!, hook.body.secret), 'signed with real time, so a receiver checking the replay window accepts it');

    // A click, then a delivery that fails: retried only once the clock has moved past the backoff.
    assert.equal((await fetch(`${fake.url}/faked`, { redirect: 'manual', headers: { 'user-agent': BROWSER } })).status, 302);
    await fake.deliverWebhooks();
    assert.equal(r.received.length, 2);
    assert.deepEqual(r.received[1]!.event.data, { id: 1, clicks: 1 });
    await fake.deliverWebhooks();
    assert.equal(r.received.length, 2, 'not due while the clock stands still');
    fake.clock.advance(30_000);
    assert.ok(await eventually(() => r.received.length === 3, 5000), 'moving the clock sent the retry');
    assert.equal(r.received[2]!.event.id, r.received[1]!.event.id);

    // The same through the admin endpoints, for test clients in any language.
    r.answer = (_x, n) => (n === 3 ? { status: 503 } : {});
    await api(fake.url, 'POST', '/api/url/add', { url: 'https://example.com/2', custom: 'faked-2' });
    assert.equal((await api(fake.url, 'POST', '/__admin/webhooks/deliver')).status, 200);
    assert.equal(r.received.length, 4);
    assert.equal((await api(fake.url, 'POST', '/__admin/clock', { advance: 30_000 })).status, 200);
    assert.ok(await eventually(() => r.received.length === 5, 5000), 'moving the clock through the admin endpoint sent the retry');
    assert.equal(r.received[4]!.event.data.alias, 'faked-2');
  } finally {
    await fake.close();
  }
});

test('after a reset, the same requests deliver the same webhooks again (their ids start over)', async () => {
  const r = await startReceiver();
  receivers.push(r);
  const fake = await startFakeServer();
  try {
    const round = async () => {
      assert.equal((await api(fake.url, 'POST', '/api/webhooks', { url: `${r.url}/hook`, events: ['link.created'] })).status, 200);
      for (let n = 1; n <= 3; n++) assert.equal((await api(fake.url, 'POST', '/api/url/add', { url: `https://example.com/${n}`, custom: `again-${n}` })).status, 200);
      await fake.deliverWebhooks();
    };
    await round();
    await fake.reset();
    await round();
    assert.deepEqual(r.received.map((x) => x.event.data.alias), ['again-1', 'again-2', 'again-3', 'again-1', 'again-2', 'again-3']);
  } finally {
    await fake.close();
  }
});

test('closing the server ends its open event streams at once instead of waiting for them', async () => {
  const fake = await startFakeServer();
  let closed = false;
  try {
    const res = await fetch(`${fake.url}/api/events/stream`, { headers: { authorization: `Bearer ${FAKE_ADMIN_KEY}` } });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    const started = Date.now();
    await fake.close();
    closed = true;
    assert.ok(Date.now() - started < 2000, `closed in ${Date.now() - started} ms`);
    const rest = await reader.read().catch(() => ({ done: true }));
    assert.equal(rest.done, true, 'the client sees the stream end');
  } finally {
    if (!closed) await fake.close();
  }
});
