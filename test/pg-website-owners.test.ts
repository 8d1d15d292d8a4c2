import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { loadMigrations, migrateWith } from '../src/store/postgres/migrate.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { OwnershipProofs } from '../src/ownership/proofs.ts';
import { websites } from '../src/analytics/websites.ts';
import type { Website } from '../src/analytics/websites.ts';
import { freshSchema } from './backend.ts';
import { eventually, testApp } from './helpers.ts';
import { withClient } from './pg-client.ts';

/**
 * Website ownership on PostgreSQL: migration 007 turns a schema where a website's domain was
 * unique across users into one where each user has one website per domain and one website per
 * domain receives its events, keeping who received them; and two processes on one schema agree on
 * who receives, with no cache between them.
 */
const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-website-owners: PostgreSQL website ownership tests skipped (TEST_DATABASE_URL is not set)');

const open = (schema: string) => PostgresStore.open({ url: URL!, schema, collections: storeSchema(RESOURCES), poolSize: 3, listen: true });

describe('website owners on PostgreSQL', { skip: !URL }, () => {
  test('a schema of version 6 with websites: 007 keeps each one receiving its domain and frees the domain for other users', async () => {
    const schema = freshSchema();
    const migrations = await loadMigrations();
    await withClient(async (c) => {
      await c.query(`CREATE SCHEMA "${schema}"`);
      await c.query(`SET search_path TO "${schema}"`);
      await migrateWith(c, schema, migrations.slice(0, 6));
      await c.query(`INSERT INTO users (id, data, username, email, key_hash) VALUES (1, '{}', 'u1', 'u1@example.com', 'h1'), (2, '{}', 'u2', 'u2@example.com', 'h2')`);
      const site = (domain: string) => JSON.stringify({ domain, privacy: 0, email: 0, password: null, exclude_bots: 1, exclude_params: '', exclude_ips: '', favorite: false, created_at: '2026-11-20T10:00:00.000000Z', updated_at: '2026-11-20T10:00:00.000000Z' });
      await c.query(`INSERT INTO websites (id, user_id, data, k_domain) VALUES (1, 1, $1, 'one.example'), (2, 2, $2, 'two.example')`, [site('one.example'), site('two.example')]);
      await c.query(`SELECT setval(pg_get_serial_sequence('websites', 'id'), 2)`);
    });
    const store = await open(schema);
    try {
      const columns = await withClient(async (c) => (await c.query(`SELECT id, k_domain, k_own_domain, k_receiving FROM "${schema}".websites ORDER BY id`)).rows);
      assert.deepEqual(columns, [
        { id: '1', k_domain: 'one.example', k_own_domain: '1\none.example', k_receiving: 'one.example' },
        { id: '2', k_domain: 'two.example', k_own_domain: '2\ntwo.example', k_receiving: 'two.example' },
      ]);
      assert.equal((await store.lookup('websites', 'receiving', 'one.example'))?.id, 1);
      assert.equal((await store.lookup('websites', 'ownDomain', '2\ntwo.example'))?.id, 2);
      // The server's keys of the stored records are the ones the migration wrote.
      const first = (await store.get('websites', 1))!;
      assert.deepEqual([websites.indexes!.ownDomain!(first), websites.indexes!.receiving!(first)], ['1\none.example', 'one.example']);
      await assert.rejects(store.transaction((tx) => tx.insert('websites', { userId: 1, domain: 'one.example', receives: false })), { name: 'ConflictError', index: 'ownDomain' });
      const added = await store.transaction((tx) => tx.insert('websites', { userId: 2, domain: 'one.example', receives: false }));
      assert.equal((await store.get('websites', added.id))?.userId, 2);
      await assert.rejects(store.transaction((tx) => tx.update('websites', added.id, { receives: true })), { name: 'ConflictError', index: 'receiving' });
    } finally {
      await store.close();
    }
  });

  test('two processes on one schema: a proof made through one moves the events the other ingests once it hears of it', async () => {
    const schema = freshSchema();
    const [one, two] = [await open(schema), await open(schema)];
    try {
      const txt = new Map<string, string[][]>();
      const resolveTxt = async (name: string) => txt.get(name) ?? Promise.reject(Object.assign(new Error('ENODATA'), { code: 'ENODATA' }));
      const a = await testApp({ trustProxy: true }, { store: one, proofs: new OwnershipProofs(one, { resolveTxt }) });
      const b = await testApp({ trustProxy: true }, { store: two, proofs: new OwnershipProofs(two, { resolveTxt }) });
      const [alice, bob] = [await a.makeUser('alice'), await a.makeUser('bob')];
      const alices = (await a.call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'both.example' } })).body.data.id as number;
      const bobs = await b.call('POST', '/api/v1/websites', { key: bob.key, body: { domain: 'both.example' } });
      assert.deepEqual([bobs.status, bobs.body.data.receives_events], [201, false], 'the other process sees the first website');

      const event = (app: typeof a, ip: string) => app.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: 'https://both.example/' }), headers: { 'x-forwarded-for': ip, 'user-agent': 'Mozilla/5.0 Firefox/120.0' } });
      assert.equal((await event(b, '192.0.2.1')).status, 202);
      const record = (await a.call('GET', '/api/domains/verification?domain=both.example', { key: bob.key })).body.data.record;
      txt.set(record.name, [[record.value]]);
      const heard = two.version('websites');
      const verified = await a.call('POST', `/api/v1/websites/${bobs.body.data.id}/verify`, { key: bob.key });
      assert.equal(verified.status, 200, verified.text);
      // The other process keeps the receiving website in its lookup cache: it drops it when it hears
      // the write (the change feed, milliseconds; longer on a loaded machine), as it does a changed link.
      assert.ok(await eventually(() => two.version('websites') !== heard, 5000), 'the other process heard the proof');
      assert.equal((await event(b, '192.0.2.2')).status, 202);
      await Promise.all([a.counters.flush(), b.counters.flush()]);
      const counted = async (id: number) => (await two.countedDays(`website:${id}`)).reduce((n, d) => n + Number(d.counts.pageviews ?? 0), 0);
      assert.deepEqual([await counted(alices), await counted(bobs.body.data.id)], [1, 1]);
      assert.equal((await two.get<Website>('websites', alices))?.receives, false);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
