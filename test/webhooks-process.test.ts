import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { tempDir } from './live-server.ts';
import { DATABASE_URL, newSchema, startPgServer, stop, waitFor } from './pg-server.ts';
import { api, PROCESS_ADMIN_KEY, startProcess } from './process-helpers.ts';
import type { ServerProcess } from './process-helpers.ts';
import { receiverAccepts, startReceiver } from './webhook-receiver.ts';
import type { Receiver } from './webhook-receiver.ts';

/**
 * Webhooks across real processes: a delivery cut by `kill -9` is made after the restart (at least
 * once), and on PostgreSQL several processes share the outbox, each delivery sent by one of them,
 * and a stream on one process hears what another wrote. Runs in the first pass only, on both
 * backends (the PostgreSQL tests read TEST_DATABASE_URL themselves and skip without it).
 */
const receivers: Receiver[] = [];
const servers: ServerProcess[] = [];
after(async () => {
  await Promise.all(servers.map((s) => stop(s)));
  await Promise.all(receivers.map((r) => r.close()));
});

const HOOK_ENV = { WEBHOOK_PRIVATE_TARGETS: 'on', WEBHOOK_TIMEOUT: '2' };

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

/** Kills a server while its first delivery waits for an answer, starts another on the same data, and checks the event arrives. */
async function killedMidDelivery(start: () => Promise<ServerProcess>): Promise<void> {
  // The first attempt never gets its answer: the server is killed while it waits.
  const r = await receiver((_x, n) => (n === 0 ? { hang: true } : {}));
  let server = await start();
  servers.push(server);
  const hook = await api(server.url, 'POST', '/api/webhooks', { url: `${r.url}/hook`, events: ['link.created'] });
  assert.equal(hook.status, 200, JSON.stringify(hook.body));
  const link = await api(server.url, 'POST', '/api/url/add', { url: 'https://example.com/', custom: 'survivor' });
  assert.equal(link.status, 200);
  assert.ok(await waitFor(() => r.received.length === 1, 10_000), 'the first attempt reached the receiver');
  server.child.kill('SIGKILL');
  await server.exit;

  server = await start();
  servers.push(server);
  // On PostgreSQL the killed process's lease runs out first (twice WEBHOOK_TIMEOUT and a second).
  assert.ok(await waitFor(() => r.received.length >= 2, 15_000), `delivered after the restart:\n${server.output()}`);
  const [cut, made] = r.received;
  assert.equal(made!.event.id, cut!.event.id, 'the same event, sent again');
  assert.equal(made!.event.data.alias, 'survivor');
  assert.ok(receiverAccepts(made!, hook.body.secret));
  const log = await api(server.url, 'GET', `/api/webhooks/${hook.body.id}/deliveries`);
  assert.equal(log.body.data.deliveries[0].status, 'delivered');
  await stop(server);
}

test('kill -9 during a delivery, then a restart on the same JSON files: the event is delivered', async () => {
  const dir = await tempDir();
  try {
    await killedMidDelivery(() => startProcess(dir, HOOK_ENV));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

if (!DATABASE_URL) console.log('# webhook tests of several PostgreSQL processes skipped (TEST_DATABASE_URL is not set)');

if (DATABASE_URL) {
  test('kill -9 during a delivery, then a restart on the same PostgreSQL schema: the event is delivered', async () => {
    const schema = newSchema();
    await killedMidDelivery(() => startPgServer(schema, DATABASE_URL, HOOK_ENV));
  });

  test('two processes on PostgreSQL deliver each event once, in order per webhook', async () => {
    const schema = newSchema();
    const [a, b] = await Promise.all([startPgServer(schema, DATABASE_URL, HOOK_ENV), startPgServer(schema, DATABASE_URL, HOOK_ENV)]);
    servers.push(a, b);
    // A little slow, so that both processes have deliveries to race for.
    const r = await receiver(() => ({ delayMs: 10 }));
    for (const n of [1, 2, 3]) assert.equal((await api(a.url, 'POST', '/api/webhooks', { url: `${r.url}/hook-${n}`, events: ['link.created'] })).status, 200);
    for (let n = 1; n <= 20; n++) {
      const made = await api(n % 2 ? a.url : b.url, 'POST', '/api/url/add', { url: `https://example.com/${n}`, custom: `both-${n}` });
      assert.equal(made.status, 200, JSON.stringify(made.body));
    }
    assert.ok(await waitFor(() => r.received.length >= 60, 20_000), `${r.received.length} of 60 delivered`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(r.received.length, 60, 'no delivery was sent twice');
    for (const n of [1, 2, 3]) {
      const got = r.received.filter((x) => x.path === `/hook-${n}`).map((x) => x.event.data.alias);
      assert.deepEqual(got, Array.from({ length: 20 }, (_, i) => `both-${i + 1}`), `webhook ${n} in order`);
    }
    assert.equal(new Set(r.received.map((x) => `${x.path} ${x.event.id}`)).size, 60);
  });

  test('an event stream on one process hears what another process wrote', async () => {
    const schema = newSchema();
    const [a, b] = await Promise.all([startPgServer(schema, DATABASE_URL, HOOK_ENV), startPgServer(schema, DATABASE_URL, HOOK_ENV)]);
    servers.push(a, b);
    const controller = new AbortController();
    const res = await fetch(`${b.url}/api/events/stream`, { headers: { authorization: `Bearer ${PROCESS_ADMIN_KEY}` }, signal: controller.signal });
    assert.equal(res.status, 200);
    let text = '';
    const reader = res.body!.getReader();
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        text += new TextDecoder().decode(value);
      }
    })();
    const made = await api(a.url, 'POST', '/api/url/add', { url: 'https://example.com/', custom: 'heard' });
    assert.equal(made.status, 200);
    assert.ok(await waitFor(() => text.includes('"alias":"heard"'), 5000), text);
    assert.match(text, /\nid: evt_[0-9a-f]{24}\n/);
    controller.abort();
    await reading;
  });
}
