import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importInto } from '../src/cli/import.ts';
import { checkAllExport, importAll } from '../src/cli/import-all.ts';
import { storeCounts, writeAllExport } from '../src/cli/export-all.ts';
import { exportUser } from '../src/cli/export.ts';
import { withEvents } from '../src/events/emitting-store.ts';
import { prepareFixtures } from '../src/fixtures/prepare.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { exportedCollections, RESOURCES } from '../src/resources/table.ts';
import type { Webhook } from '../src/resources/webhooks.ts';
import type { EventRecord } from '../src/store/store.ts';
import { allOf, openTestStore, ownedBy, snapshotOf, testApp } from './helpers.ts';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

/** A fresh app without rate limits (these tests make many calls). */
const app = (overrides = {}) => testApp({ rateLimit: 0, analyticsRateLimit: 0, ...overrides });

/** The events the outbox holds for `userId`, oldest first. */
async function eventsOf(w: Awaited<ReturnType<typeof app>>, userId: number): Promise<EventRecord[]> {
  return (await w.store.outbox.eventsAfter(null, 1000, userId)).map((p) => p.event);
}

test('a webhook is created with its secret shown once, listed and read without it, updated and deleted', async () => {
  const w = await app();
  const made = await w.call('POST', '/api/webhooks', { body: { url: 'https://hooks.example.com/in', events: ['link.created', 'link.created', 'qr.scanned'] } });
  assert.equal(made.status, 200, made.text);
  assert.equal(made.body.error, 0);
  assert.match(made.body.secret, /^whsec_[\w-]{32}$/);
  const [stored] = await allOf<Webhook>(w.store, 'webhooks');
  assert.equal(stored!.secret, made.body.secret, 'the secret shown is the one that signs');
  assert.deepEqual(stored!.events, ['link.created', 'qr.scanned'], 'a type named twice is kept once');
  assert.equal(stored!.userId, 1);

  const list = await w.call('GET', '/api/webhooks');
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.data.webhooks, [{ id: made.body.id, url: 'https://hooks.example.com/in', events: ['link.created', 'qr.scanned'], active: true, disabled: null, date: '2026-11-21 10:00:00' }]);
  const one = await w.call('GET', `/api/webhooks/${made.body.id}`);
  assert.equal(one.body.data.url, 'https://hooks.example.com/in');
  for (const r of [list, one]) assert.ok(!r.text.includes(made.body.secret) && !r.text.includes('secret'), 'never the secret');

  const chosen = await w.call('POST', '/api/webhooks', { body: { url: 'https://hooks.example.com/two', events: ['*'], secret: 'my-own-secret-0123456789' } });
  assert.equal(chosen.body.secret, 'my-own-secret-0123456789');

  const off = await w.call('PUT', `/api/webhooks/${made.body.id}/update`, { body: { active: false, events: ['link.deleted'] } });
  assert.equal(off.status, 200, off.text);
  const read = (await w.call('GET', `/api/webhooks/${made.body.id}`)).body.data;
  assert.equal(read.active, false);
  assert.deepEqual(read.events, ['link.deleted']);
  assert.deepEqual(read.disabled, { reason: 'Turned off by its owner.', at: '2026-11-21 10:00:00' });
  const on = await w.call('POST', `/api/webhooks/${made.body.id}/update`, { body: { active: true } });
  assert.deepEqual([on.status, on.body], [200, { error: 0, message: 'Webhook has been updated successfully.' }], 'POST updates as PUT does');
  assert.equal((await w.call('GET', `/api/webhooks/${made.body.id}`)).body.data.disabled, null);

  const gone = await w.call('DELETE', `/api/webhooks/${made.body.id}/delete`);
  assert.equal(gone.status, 200);
  assert.equal((await w.call('GET', `/api/webhooks/${made.body.id}`)).status, 404);
  assert.deepEqual((await allOf<Webhook>(w.store, 'webhooks')).map((h) => h.id), [chosen.body.id]);
});

test('refused webhooks store nothing, and another user\'s webhook is answered as missing', async (t) => {
  const w = await app();
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['no url', { events: ['link.created'] }, /url/],
    ['no events', { url: 'https://hooks.example.com/' }, /events/],
    ['an empty list of events', { url: 'https://hooks.example.com/', events: [] }, /at least one event type/],
    ['an unknown event type', { url: 'https://hooks.example.com/', events: ['link.exploded'] }, /each must be one of link\.created/],
    ['no scheme', { url: 'hooks.example.com', events: ['*'] }, /must start with http/],
    ['another scheme', { url: 'ftp://hooks.example.com/', events: ['*'] }, /must start with http/],
    ['a short secret', { url: 'https://hooks.example.com/', events: ['*'], secret: 'short' }, /16 to 200/],
    ['a loopback address', { url: 'http://127.0.0.1:8080/hook', events: ['*'] }, /127\.0\.0\.1 is a private or loopback address.*WEBHOOK_PRIVATE_TARGETS/],
    ['a private address', { url: 'http://10.1.2.3/hook', events: ['*'] }, /private or loopback/],
    ['an IPv6 loopback', { url: 'http://[::1]/hook', events: ['*'] }, /private or loopback/],
    ['localhost', { url: 'http://localhost:3000/hook', events: ['*'] }, /localhost is a private/],
    ['localhost written absolute', { url: 'http://LOCALHOST.:3000/hook', events: ['*'] }, /localhost\. is a private/],
    ['a subdomain of localhost written absolute', { url: 'http://a.localhost./hook', events: ['*'] }, /private or loopback/],
    ['localhost with two dots', { url: 'http://localhost../hook', events: ['*'] }, /private or loopback/],
    ['link-local (cloud metadata)', { url: 'http://169.254.169.254/latest', events: ['*'] }, /private or loopback/],
  ];
  const before = await snapshotOf(w.store, 'webhooks');
  for (const [name, body, message] of cases) {
    await t.test(name, async () => {
      const r = await w.call('POST', '/api/webhooks', { body });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error, 1);
      assert.match(r.body.message, message);
      assert.equal(await snapshotOf(w.store, 'webhooks'), before);
    });
  }
  const mine = await w.call('POST', '/api/webhooks', { body: { url: 'https://hooks.example.com/', events: ['*'] } });
  const refused = await w.call('PUT', `/api/webhooks/${mine.body.id}/update`, { body: { url: 'http://192.168.1.10/' } });
  assert.equal(refused.status, 400);
  assert.equal((await allOf<Webhook>(w.store, 'webhooks'))[0]!.url, 'https://hooks.example.com/');

  const other = await w.makeUser('other');
  const stored = await snapshotOf(w.store, 'webhooks');
  for (const [method, path] of [['GET', ''], ['PUT', '/update'], ['DELETE', '/delete'], ['POST', '/test'], ['GET', '/deliveries']] as const) {
    const r = await w.call(method, `/api/webhooks/${mine.body.id}${path}`, { key: other.key, body: method === 'PUT' ? { active: false } : undefined });
    assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
    assert.equal(r.body.message, 'Webhook does not exist.');
  }
  assert.equal(await snapshotOf(w.store, 'webhooks'), stored);
  assert.deepEqual(await ownedBy(w.store, 'deliveries', 1), [], 'no test event was queued');

  const lan = await app({ webhookPrivateTargets: true });
  assert.equal((await lan.call('POST', '/api/webhooks', { body: { url: 'http://192.168.1.10/hook', events: ['*'] } })).status, 200, 'WEBHOOK_PRIVATE_TARGETS=on allows a LAN');
});

test('every write of a link, QR code or website appends its event in the same transaction', async () => {
  const w = await app();
  const link = (await w.call('POST', '/api/url/add', { body: { url: 'https://example.com/a', custom: 'evented', metatitle: 'Hello' } })).body;
  await w.call('PUT', `/api/url/${link.id}/update`, { body: { url: 'https://example.com/b' } });
  await w.call('DELETE', `/api/url/${link.id}/delete`);
  const qr = (await w.call('POST', '/api/qr/add', { body: { type: 'text', data: 'hi', name: 'Mine' } })).body;
  const site = await w.call('POST', '/api/v1/websites', { body: { domain: 'evented.example.com' } });
  assert.equal(site.status, 201, site.text);
  // A refused write (an alias taken) appends nothing.
  assert.equal((await w.call('POST', '/api/url/add', { body: { url: 'https://example.com/c', custom: 'evented' } })).status, 200);
  assert.equal((await w.call('POST', '/api/url/add', { body: { url: 'https://example.com/d', custom: 'evented' } })).status, 400);

  const events = await eventsOf(w, 1);
  assert.deepEqual(events.map((e) => e.type), ['link.created', 'link.updated', 'link.deleted', 'qr.created', 'website.created', 'link.created']);
  for (const e of events) {
    assert.match(e.eventId, /^evt_[0-9a-f]{24}$/);
    assert.equal(e.created, '2026-11-21T10:00:00.000Z');
  }
  assert.equal(new Set(events.map((e) => e.eventId)).size, events.length, 'event ids are unique');
  assert.deepEqual(events[0]!.data, { id: link.id, alias: 'evented', shorturl: 'http://sho.rt/evented', longurl: 'https://example.com/a', title: 'Hello', description: '', status: 'private', campaign: null, channel: [], date: '2026-11-21 10:00:00' });
  assert.equal(events[1]!.data.longurl, 'https://example.com/b');
  assert.equal(events[2]!.data.id, link.id);
  assert.deepEqual(events[3]!.data, { id: qr.id, name: 'Mine', type: 'text', link: `http://sho.rt/qr/${(await w.store.get<{ alias: string } & EventRecord>('qrs', qr.id))!.alias}`, date: '2026-11-21 10:00:00' });
  assert.equal(events[4]!.data.domain, 'evented.example.com');
  assert.deepEqual(await eventsOf(w, 2), [], "no event reaches another user's outbox");
});

test('a transaction that rolls back appends no event; one that commits always has its event', async () => {
  const w = await app();
  const store = withEvents(w.store, RESOURCES, { config: w.config, clock: w.clock });
  const fields = { userId: 1, alias: 'rolled', url: 'https://example.com/', title: '', domainId: null, status: 'private', date: '2026-11-21 10:00:00' };
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.insert('links', fields);
      throw new Error('changed my mind');
    }),
    /changed my mind/,
  );
  assert.deepEqual(await eventsOf(w, 1), []);
  assert.deepEqual(await allOf(w.store, 'links'), []);
  const kept = await store.transaction((tx) => tx.insert('links', { ...fields, alias: 'kept' }));
  const events = await eventsOf(w, 1);
  assert.deepEqual(events.map((e) => [e.type, e.data.id]), [['link.created', kept.id]]);
  // Changes of several records at once fire for each record changed.
  await store.transaction((tx) => tx.updateMany('links', [{ id: kept.id, patch: { title: 'one' } }, { id: 999, patch: { title: 'none' } }, { id: kept.id, patch: { title: 'two' } }]));
  assert.deepEqual((await eventsOf(w, 1)).slice(1).map((e) => [e.type, e.data.id, e.data.title]), [['link.updated', kept.id, 'one'], ['link.updated', kept.id, 'two']]);
  await store.transaction((tx) => tx.remove('links', kept.id));
  // A user's records going with the user fire nothing, and take the user's events along.
  await w.call('POST', '/api/url/add', { body: { url: 'https://example.com/x' }, key: (await w.makeUser('leaving')).key });
  assert.equal((await eventsOf(w, 2)).length, 1);
  assert.equal((await w.call('DELETE', '/api/user/2/delete')).status, 200);
  assert.deepEqual(await eventsOf(w, 2), []);
  assert.deepEqual((await eventsOf(w, 1)).map((e) => e.type), ['link.created', 'link.updated', 'link.updated', 'link.deleted']);
});

test('clicks and scans are one event per link (QR code) and statistics flush, with the count since the last', async () => {
  const w = await app();
  const link = (await w.call('POST', '/api/url/add', { body: { url: 'https://example.com/', custom: 'clicky' } })).body;
  const qr = (await w.call('POST', '/api/qr/add', { body: { type: 'link', data: 'https://example.com/q' } })).body;
  const alias = (await w.store.get<{ alias: string } & EventRecord>('qrs', qr.id))!.alias;
  const visit = (path: string, ip: string) => w.app.request(path, { headers: { 'user-agent': BROWSER, 'x-forwarded-for': ip } });
  for (const ip of ['1.1.1.1', '2.2.2.2', '1.1.1.1']) assert.equal((await visit('/clicky', ip)).status, 302);
  assert.equal((await visit(`/qr/${alias}/scan`, '3.3.3.3')).status, 302);
  await w.counters.flush();
  const clicked = () => eventsOf(w, 1).then((all) => all.filter((e) => e.type === 'link.clicked' || e.type === 'qr.scanned').map((e) => [e.type, e.data]));
  assert.deepEqual(await clicked(), [['link.clicked', { id: link.id, clicks: 3 }], ['qr.scanned', { id: qr.id, scans: 1 }]]);
  await visit('/clicky', '4.4.4.4');
  await visit('/clicky', '5.5.5.5');
  await w.counters.flush();
  assert.deepEqual((await clicked()).slice(2), [['link.clicked', { id: link.id, clicks: 2 }]]);
  await w.counters.flush();
  assert.equal((await clicked()).length, 3, 'a flush without clicks reports nothing');
});

test("an import of a user's export fires its records' events, then import.finished, in its one transaction", async () => {
  const w = await app();
  const store = withEvents(w.store, RESOURCES, { config: w.config, clock: w.clock });
  const file = await prepareFixtures(
    { links: [{ id: 7, userId: 9, alias: 'imported-a', url: 'https://example.com/a' }, { id: 8, userId: 9, alias: 'imported-b', url: 'https://example.com/b' }], qrs: [{ id: 3, userId: 9, alias: 'qrimport', type: 'text', data: 'hi', name: 'Imported' }] },
    RESOURCES,
    w.clock.now(),
  );
  const report = await importInto(store, file, (await w.store.get<UserRecord>('users', 1))!, RESOURCES);
  assert.deepEqual(report.imported, { links: 2, qrs: 1 });
  const events = await eventsOf(w, 1);
  assert.deepEqual(events.map((e) => [e.type, e.data.alias ?? e.data.name ?? null]).sort(), [['import.finished', null], ['link.created', 'imported-a'], ['link.created', 'imported-b'], ['qr.created', 'Imported']]);
  assert.equal(events.at(-1)!.type, 'import.finished', 'after the records');
  assert.deepEqual(events[3]!.data, { source: 'export', imported: { links: 2, qrs: 1 }, notes: [] });
});

test('an import job fires its links\' events and then import.finished with its counts; a dry run fires none', async () => {
  const w = await app();
  const job = async (query: string) => {
    const started = await w.call('POST', `/api/import?${query}`, { raw: 'url,alias\nhttps://example.com/i1,imp-one\nnot a url,imp-two\n', headers: { 'content-type': 'text/csv' } });
    assert.equal(started.status, 202, started.text);
    for (let i = 0; i < 300; i++) {
      const state = (await w.call('GET', `/api/import/${started.body.id}`)).body.data.state;
      if (state === 'finished' || state === 'failed') return started.body.id as number;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the import did not end');
  };
  await job('format=csv&dry_run=true');
  assert.deepEqual((await eventsOf(w, 1)).map((e) => e.type), [], 'a dry run changes nothing, and tells nothing');
  const id = await job('format=csv');
  const events = await eventsOf(w, 1);
  assert.deepEqual(events.map((e) => e.type), ['link.created', 'import.finished']);
  assert.equal(events[0]!.data.alias, 'imp-one');
  assert.deepEqual(events[1]!.data, { source: 'links', id, format: 'csv', state: 'finished', total: 2, created: 1, skipped: 0, refused: 1, message: null });
});

test('export --all carries webhooks with their secrets and leaves the outbox out; import --all restores them', async () => {
  const w = await app({ webhookPrivateTargets: true });
  const made = (await w.call('POST', '/api/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['link.created'] } })).body;
  await w.call('POST', '/api/url/add', { body: { url: 'https://example.com/', custom: 'moved' } });
  await w.call('POST', `/api/webhooks/${made.id}/test`);
  await w.webhooks.drain();
  assert.ok((await allOf(w.store, 'events')).length > 0 && (await allOf(w.store, 'deliveries')).length > 0);
  // Nothing buffered may reach the store while it is exported (a server would be stopped first): the
  // counters, the audit log and the keys' uses are written now, not by their timers mid-export.
  await w.counters.flush();
  await w.audit.flush();
  await w.keyUses.flush();

  let text = '';
  await writeAllExport(w.store, await storeCounts(w.store, exportedCollections(RESOURCES)), (piece) => void (text += piece), Date.now());
  const raw = JSON.parse(text);
  assert.equal(raw.webhooks[0].secret, made.secret);
  assert.ok(!('events' in raw) && !('deliveries' in raw) && !('outbox' in raw), 'the outbox is not exported');
  const target = await openTestStore();
  await importAll(target, checkAllExport(raw, RESOURCES, 'all.json'));
  assert.deepEqual(await allOf(target, 'webhooks'), await allOf(w.store, 'webhooks'));
  assert.deepEqual(await allOf(target, 'events'), []);
  const file = await exportUser(w.store, (await w.store.get<UserRecord>('users', 1))!, RESOURCES, Date.now());
  assert.equal((file.webhooks as Webhook[])[0]!.secret, made.secret, "one user's export carries its webhooks too");
  assert.ok(!('events' in file) && !('deliveries' in file));
});

test('bulk creates, updates and deletes fire an event per link written, none for an item refused', async () => {
  const w = await app();
  const made = await w.call('POST', '/api/url/bulk', { body: { urls: [{ url: 'https://example.com/b1', custom: 'bulk-1' }, { url: 'not a url' }, { url: 'https://example.com/b2', custom: 'bulk-2' }] } });
  assert.equal(made.status, 200, made.text);
  const ids = made.body.results.filter((r: { error: number }) => r.error === 0).map((r: { id: number }) => r.id);
  assert.equal(ids.length, 2);
  assert.equal((await w.call('POST', '/api/url/bulk/update', { body: { urls: ids.map((id: number) => ({ id, description: 'changed' })) } })).status, 200);
  assert.equal((await w.call('POST', '/api/url/bulk/delete', { body: { ids } })).status, 200);
  const events = await eventsOf(w, 1);
  assert.deepEqual(events.map((e) => [e.type, e.data.alias]), [
    ['link.created', 'bulk-1'],
    ['link.created', 'bulk-2'],
    ['link.updated', 'bulk-1'],
    ['link.updated', 'bulk-2'],
    ['link.deleted', 'bulk-1'],
    ['link.deleted', 'bulk-2'],
  ]);
});
