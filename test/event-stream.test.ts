import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventStreams } from '../src/events/event-streams.ts';
import type { EventRecord } from '../src/store/store.ts';
import { ADMIN_KEY, allOf, eventually, openTestStore, testApp } from './helpers.ts';

/** One Server-Sent Event as a client reads it. */
interface Sse {
  id?: string;
  event?: string;
  data: string;
}

/** An open stream: the events and comment lines read so far. */
interface Opened {
  status: number;
  headers: Headers;
  events: Sse[];
  comments: string[];
  text: string;
  close(): Promise<void>;
}

/** Opens GET /api/events/stream on an in-process app and reads it in the background. */
async function openStream(w: { app: { request(path: string, init: RequestInit): Response | Promise<Response> } }, options: { key?: string; lastEventId?: string; query?: string } = {}): Promise<Opened> {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? ADMIN_KEY}`, accept: 'text/event-stream' };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const res = await w.app.request(`/api/events/stream${options.query ?? ''}`, { headers, signal: controller.signal });
  const opened: Opened = { status: res.status, headers: res.headers, events: [], comments: [], text: '', close: async () => {} };
  if (res.status !== 200 || !res.body) {
    opened.text = await res.text();
    return opened;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      opened.text += decoder.decode(value);
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const sse: Sse = { data: '' };
        let isEvent = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) opened.comments.push(line.slice(1).trim());
          else if (line.startsWith('data: ')) ((sse.data += line.slice(6)), (isEvent = true));
          else if (line.startsWith('id: ')) sse.id = line.slice(4);
          else if (line.startsWith('event: ')) sse.event = line.slice(7);
        }
        if (isEvent) opened.events.push(sse);
      }
    }
  })();
  opened.close = async () => {
    controller.abort();
    await reader.cancel().catch(() => {});
    await reading;
  };
  return opened;
}

const created = (w: Awaited<ReturnType<typeof testApp>>, n: number, key?: string) => w.call('POST', '/api/url/add', { body: { url: `https://example.com/${n}`, custom: `streamed-${n}` }, ...(key ? { key } : {}) });

test('the stream sends the key user\'s events as they happen, each with its id, and nobody else\'s', async () => {
  const w = await testApp({ rateLimit: 0 });
  const other = await w.makeUser('other');
  const mine = await openStream(w);
  assert.equal(mine.status, 200);
  assert.equal(mine.headers.get('content-type'), 'text/event-stream');
  assert.equal(mine.headers.get('cache-control'), 'no-cache');
  await w.call('POST', '/api/url/add', { body: { url: 'https://example.com/theirs' }, key: other.key });
  await created(w, 1);
  await created(w, 2);
  try {
    assert.ok(await eventually(() => mine.events.length === 2, 5000), mine.text);
    const bodies = mine.events.map((e) => JSON.parse(e.data));
    assert.deepEqual(bodies.map((b) => [b.type, b.data.alias]), [['link.created', 'streamed-1'], ['link.created', 'streamed-2']]);
    for (const [i, e] of mine.events.entries()) assert.equal(e.id, bodies[i].id, 'id: is the event id');
    assert.deepEqual(Object.keys(bodies[0]), ['id', 'type', 'created', 'data']);
    assert.match(mine.text, /^: events of user 1\nretry: 3000\n\n/);
  } finally {
    await mine.close();
  }
});

test('Last-Event-ID resumes after that event; an id the outbox does not have starts from now', async () => {
  const w = await testApp({ rateLimit: 0 });
  const first = await openStream(w);
  await created(w, 1);
  await created(w, 2);
  assert.ok(await eventually(() => first.events.length === 2, 5000));
  await first.close();
  const lastSeen = first.events[1]!.id!;
  await created(w, 3);
  await created(w, 4);

  const resumed = await openStream(w, { lastEventId: lastSeen });
  try {
    assert.ok(await eventually(() => resumed.events.length >= 2, 5000), resumed.text);
    await created(w, 5);
    assert.ok(await eventually(() => resumed.events.length === 3, 5000));
    assert.deepEqual(resumed.events.map((e) => JSON.parse(e.data).data.alias), ['streamed-3', 'streamed-4', 'streamed-5']);
  } finally {
    await resumed.close();
  }
  const byQuery = await openStream(w, { query: `?last_event_id=${first.events[0]!.id}` });
  assert.ok(await eventually(() => byQuery.events.length === 4, 5000));
  await byQuery.close();

  const unknown = await openStream(w, { lastEventId: 'evt_000000000000000000000000' });
  try {
    await created(w, 6);
    assert.ok(await eventually(() => unknown.events.length === 1, 5000));
    assert.equal(JSON.parse(unknown.events[0]!.data).data.alias, 'streamed-6');
  } finally {
    await unknown.close();
  }
});

test('a user may have a bounded number of streams open; closing one makes room', async () => {
  const w = await testApp({ rateLimit: 0, eventStreamsPerUser: 2 });
  const a = await openStream(w);
  const b = await openStream(w);
  const refused = await openStream(w);
  assert.equal(refused.status, 429);
  assert.deepEqual(JSON.parse(refused.text), { error: 1, message: 'At most 2 event streams of a user may be open at once: close one first.' });
  const other = await w.makeUser('other');
  const theirs = await openStream(w, { key: other.key });
  assert.equal(theirs.status, 200, 'the bound is per user');
  await a.close();
  let again: Opened | undefined;
  assert.ok(await eventually(async () => {
    again = await openStream(w);
    if (again.status === 200) return true;
    return false;
  }, 3000));
  await Promise.all([b.close(), theirs.close(), again!.close()]);
  const none = await w.app.request('/api/events/stream');
  assert.equal(none.status, 401, 'a key is needed');
});

test('a quiet stream sends heartbeats', async () => {
  const store = await openTestStore();
  const streams = new EventStreams(store, { perUser: 5, databaseMs: 5000, heartbeatMs: 100, pollMs: 20 });
  const w = await testApp({ rateLimit: 0 }, { store, streams });
  const quiet = await openStream(w);
  try {
    assert.ok(await eventually(() => quiet.comments.filter((c) => c === 'heartbeat').length >= 2, 3000), quiet.text);
  } finally {
    await quiet.close();
  }
  streams.close();
});

test('events and delivery logs are kept EVENT_RETENTION_DAYS: past it they go, and a resume after a pruned event starts from now', async () => {
  const w = await testApp({ rateLimit: 0, eventRetentionDays: 3, webhookPrivateTargets: true });
  await w.call('POST', '/api/webhooks', { body: { url: 'http://127.0.0.1:9/unreachable', events: ['*'] } });
  const first = await openStream(w);
  await created(w, 1);
  assert.ok(await eventually(() => first.events.length === 1, 5000));
  await first.close();
  await w.webhooks.drain();
  assert.equal((await allOf(w.store, 'deliveries')).length, 1);
  w.clock.advance(2 * 86_400_000);
  await created(w, 2);
  w.clock.advance(86_400_000 + 1);
  await w.webhooks.drain();
  // The first event (and its delivery) are past three days; the second is not.
  assert.deepEqual((await allOf<EventRecord>(w.store, 'events')).map((e) => e.data.alias), ['streamed-2']);
  assert.deepEqual((await allOf<{ event: { data: { alias: string } } } & EventRecord>(w.store, 'deliveries')).map((d) => d.event.data.alias), ['streamed-2']);
  const resumed = await openStream(w, { lastEventId: first.events[0]!.id });
  try {
    await created(w, 3);
    assert.ok(await eventually(() => resumed.events.length === 1, 5000));
    assert.equal(JSON.parse(resumed.events[0]!.data).data.alias, 'streamed-3', 'from now: the kept event 2 is not sent again');
  } finally {
    await resumed.close();
  }
});
