import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { MAX_RECEIVERS } from '../src/webhooks/kept-connections.ts';
import { webhookSender } from '../src/webhooks/send.ts';
import type { WebhookSender } from '../src/webhooks/send.ts';
import { eventually } from './helpers.ts';
import { startReceiver } from './webhook-receiver.ts';
import type { Receiver } from './webhook-receiver.ts';

const closing: (() => unknown)[] = [];
after(() => Promise.all(closing.map((c) => c())));

function sender(timeoutMs = 2000, resolve?: Parameters<typeof webhookSender>[0]['resolve']): WebhookSender {
  const s = webhookSender({ timeoutMs, allowPrivate: true, resolve });
  closing.push(() => s.close());
  return s;
}

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const r = await startReceiver(answer);
  closing.push(() => r.close());
  return r;
}

/**
 * A receiver written at the socket level, so a test decides what each connection does with each
 * request: `handle(socket, connection, request)` (both counted from 0) answers it, or not.
 */
async function rawReceiver(handle: (socket: Socket, connection: number, request: number) => void) {
  const requests: { connection: number; text: string }[] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const connection = connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    let seen = 0;
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // One request: headers and a body of its content-length.
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        requests.push({ connection, text: buffered.slice(0, end + 4 + length) });
        buffered = buffered.slice(end + 4 + length);
        handle(socket, connection, seen++);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(resolve);
  }));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, requests, connections: () => connections };
}

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok';
const post = (s: WebhookSender, url: string, n: number) => s(url, JSON.stringify({ n }), { 'content-type': 'application/json' });

test('deliveries to one receiver go over one kept connection', async () => {
  const r = await receiver();
  const send = sender();
  for (let n = 0; n < 5; n++) {
    const result = await post(send, `${r.url}/in`, n);
    assert.equal(result.ok, true, String(result.error));
    assert.equal(result.status, 200);
  }
  assert.deepEqual(r.received.map((x) => JSON.parse(x.body).n), [0, 1, 2, 3, 4]);
  assert.equal(r.connections, 1, 'one connection for five deliveries');
  assert.equal(r.open, 1, 'kept open between deliveries');
  // Failures (an answer the delivery log keeps) leave it usable too: the answer was read to its end.
  r.answer = () => ({ status: 500, body: 'down' });
  const failed = await post(send, `${r.url}/in`, 5);
  assert.deepEqual([failed.ok, failed.status, failed.body], [false, 500, 'down']);
  r.answer = () => ({});
  assert.equal((await post(send, `${r.url}/in`, 6)).ok, true);
  assert.equal(r.connections, 1);

  send.close();
  assert.ok(await eventually(() => r.open === 0, 1000), 'close() ends the kept connection');
  assert.equal((await post(send, `${r.url}/in`, 7)).ok, true, 'and a later delivery makes a new one');
  assert.equal(r.connections, 2);
});

test('a kept connection the receiver closed as a delivery went over it: the delivery goes again over a new one', async () => {
  // Connection 0 answers its first request, then closes on the second without answering (as a
  // receiver whose idle timeout ran out while the request was on its way); later connections answer.
  const raw = await rawReceiver((socket, connection, request) => {
    if (connection === 0 && request === 1) socket.end();
    else socket.write(OK);
  });
  const send = sender();
  assert.equal((await post(send, raw.url, 1)).ok, true);
  const second = await post(send, raw.url, 2);
  assert.equal(second.ok, true, String(second.error));
  assert.equal(raw.connections(), 2);
  assert.deepEqual(raw.requests.map((x) => [x.connection, JSON.parse(x.text.split('\r\n\r\n')[1]!).n]), [[0, 1], [0, 2], [1, 2]]);

  // The same on a new connection is the receiver's answer, not a stale connection: not sent again.
  const resets = await rawReceiver((socket) => socket.resetAndDestroy());
  const refused = await post(send, resets.url, 3);
  assert.deepEqual([refused.ok, refused.status, refused.error], [false, null, 'connection reset']);
  assert.equal(resets.requests.length, 1, 'sent once');
});

test('when several kept connections were closed by the receiver, a delivery tries one of them, then a new connection', async () => {
  // Four deliveries at once open four connections (their first answers wait); each of those four
  // then closes on its next request. Later connections answer.
  const raw = await rawReceiver((socket, connection, request) => {
    if (connection < 4 && request === 0) setTimeout(() => socket.write(OK), 100);
    else if (connection < 4) socket.end();
    else socket.write(OK);
  });
  const send = sender();
  const first = await Promise.all([1, 2, 3, 4].map((n) => post(send, raw.url, n)));
  assert.deepEqual(first.map((r) => r.ok), [true, true, true, true]);
  assert.equal(raw.connections(), 4);
  const next = await post(send, raw.url, 5);
  assert.equal(next.ok, true, String(next.error));
  assert.equal(raw.connections(), 5, 'one new connection');
  const fifth = raw.requests.filter((x) => x.text.endsWith('{"n":5}'));
  assert.equal(fifth.length, 2, 'sent over one closed connection, then over the new one');
  assert.equal(fifth[1]!.connection, 4);
});

test('close() while a delivery is under way on a kept connection: it fails, and is not sent again', async () => {
  const r = await receiver((_, n) => (n === 1 ? { hang: true } : {}));
  const send = sender();
  assert.equal((await post(send, `${r.url}/in`, 1)).ok, true);
  const going = post(send, `${r.url}/in`, 2);
  assert.ok(await eventually(() => r.received.length === 2));
  send.close();
  const outcome = await going;
  assert.deepEqual([outcome.ok, outcome.status], [false, null]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(r.received.map((x) => JSON.parse(x.body).n), [1, 2], 'not sent again');
  assert.equal(send.kept.size, 0, 'no pool made again');
  assert.ok(await eventually(() => r.open === 0, 1000));
});

test('a connection is reused only for the addresses it was made to', async () => {
  // The receiver listens on 127.0.0.1 only; the name resolves there, then to 127.0.0.2, then back.
  const r = await receiver();
  const port = new URL(r.url).port;
  const answers = ['127.0.0.1', '127.0.0.2', '127.0.0.1'];
  const send = sender(2000, async () => [{ address: answers.shift()!, family: 4 }]);
  const url = `http://hooks.example.test:${port}/in`;
  assert.equal((await post(send, url, 1)).ok, true);
  const moved = await post(send, url, 2);
  assert.deepEqual([moved.ok, moved.error], [false, 'connection refused'], 'not sent over the connection to the address it had before');
  assert.equal((await post(send, url, 3)).ok, true);
  assert.equal(r.connections, 1, 'the first connection, kept for its address');
  assert.deepEqual(r.received.map((x) => [x.headers.host, JSON.parse(x.body).n]), [[`hooks.example.test:${port}`, 1], [`hooks.example.test:${port}`, 3]]);
});

test('a delivery that times out on a kept connection closes it; the next one makes a new one', async () => {
  const r = await receiver((_, n) => (n === 1 ? { hang: true } : {}));
  const send = sender(300);
  assert.equal((await post(send, `${r.url}/in`, 1)).ok, true);
  const late = await post(send, `${r.url}/in`, 2);
  assert.deepEqual([late.ok, late.error], [false, 'no answer within 0.3 s']);
  assert.equal((await post(send, `${r.url}/in`, 3)).ok, true);
  assert.equal(r.connections, 2);
  assert.deepEqual(r.received.map((x) => JSON.parse(x.body).n), [1, 2, 3]);
});

test('connections are kept for a bounded number of receivers; the least recently used one is closed', async () => {
  const first = await receiver();
  const send = sender();
  assert.equal((await post(send, `${first.url}/in`, 0)).ok, true);
  assert.equal(first.open, 1);
  // Receivers are told apart by origin: the same server under other names (each a pool of its own).
  const port = new URL(first.url).port;
  const named = sender(2000, async () => [{ address: '127.0.0.1', family: 4 }]);
  for (let i = 0; i <= MAX_RECEIVERS; i++) assert.equal((await post(named, `http://r${i}.example.test:${port}/in`, i)).ok, true);
  assert.equal(named.kept.size, MAX_RECEIVERS);
  assert.ok(await eventually(() => first.open === 1 + MAX_RECEIVERS), 'the first of the named ones closed when the pools were too many');
  assert.equal(first.connections, 2 + MAX_RECEIVERS);
  named.close();
  assert.ok(await eventually(() => first.open === 1, 1000));

  // A pool dropped while one of its connections carries a delivery: that connection closes when the delivery ends.
  let answer = () => {};
  const held = new Promise<void>((resolve) => (answer = resolve));
  const slow = await receiver((_, n) => (n === 0 ? { after: held } : {}));
  const busy = post(named, `${slow.url}/in`, 0);
  assert.ok(await eventually(() => slow.received.length === 1));
  for (let i = 0; i < MAX_RECEIVERS; i++) assert.equal((await post(named, `http://s${i}.example.test:${port}/in`, i)).ok, true);
  answer();
  assert.equal((await busy).ok, true);
  assert.ok(await eventually(() => slow.open === 0, 1000), 'not kept idle by a pool no longer used');
});
