import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api } from './process-helpers.ts';
import type { ServerProcess } from './process-helpers.ts';
import { DATABASE_URL, newSchema, sql, startPgServer, stop, waitFor } from './pg-server.ts';

/**
 * Scoped keys and the audit log with two server processes on one PostgreSQL schema: a key revoked
 * (or its user disabled) on one is refused by the other on the very next request, though that one held it; the audit log
 * holds the writes of both. PostgreSQL only: it reads TEST_DATABASE_URL itself and skips without it.
 */
if (!DATABASE_URL) console.log('# keys-instances tests skipped (TEST_DATABASE_URL is not set)');

if (DATABASE_URL) describe('PostgreSQL: scoped keys across two processes', () => {
  const schema = newSchema();
  let a: ServerProcess;
  let b: ServerProcess;
  before(async () => {
    [a, b] = await Promise.all([startPgServer(schema, DATABASE_URL, { RATE_LIMIT: '0' }), startPgServer(schema, DATABASE_URL, { RATE_LIMIT: '0' })]);
  });
  after(async () => {
    await Promise.all([a, b].filter(Boolean).map((s) => stop(s)));
  });

  test('a key revoked on A is refused on B at once, though B held it; a key made on A works on B at once', async () => {
    for (let round = 0; round < 10; round++) {
      const made = await api(a.url, 'POST', '/api/keys', { name: `round ${round}`, scopes: ['links:read'] });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const key = made.body.apikey as string;
      // B has never seen it: it asks the database, where A committed it before answering.
      assert.equal((await api(b.url, 'GET', '/api/urls', undefined, key)).status, 200);
      assert.equal((await api(b.url, 'GET', '/api/urls', undefined, key)).status, 200); // held by B's key index now
      assert.equal((await api(b.url, 'POST', '/api/url/add', { url: 'https://example.com' }, key)).status, 403);
      const revoked = await api(a.url, 'DELETE', `/api/keys/${made.body.id}`);
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      const next = await api(b.url, 'GET', '/api/urls', undefined, key);
      assert.deepEqual([next.status, next.body.message], [401, 'A valid API key is required to use this service.'], `round ${round}`);
    }
    assert.deepEqual(await sql(`SELECT id FROM "${schema}".api_keys`), []);
  });

  test('a user disabled on A has every key refused on B at once, though B held it; enabled, they work again', async () => {
    const made = await api(a.url, 'POST', '/api/user/add', { username: 'dora', email: 'dora@example.com', password: 'dora-secret' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const { id, apikey } = made.body.data as { id: number; apikey: string };
    for (let round = 0; round < 5; round++) {
      assert.equal((await api(b.url, 'GET', '/api/urls', undefined, apikey)).status, 200);
      assert.equal((await api(b.url, 'GET', '/api/urls', undefined, apikey)).status, 200); // held by B's key index now
      assert.equal((await api(a.url, 'POST', `/api/user/${id}/disable`, { reason: `round ${round}` })).status, 200);
      const next = await api(b.url, 'GET', '/api/urls', undefined, apikey);
      assert.deepEqual([next.status, next.body.message], [403, 'This account has been disabled. Contact the administrator of this server.'], `round ${round}`);
      assert.equal((await api(a.url, 'POST', `/api/user/${id}/enable`)).status, 200);
    }
    assert.deepEqual(await sql(`SELECT data->>'disabled' AS disabled FROM "${schema}".users WHERE id = ${Number(id)}`), [{ disabled: 'false' }]);
  });

  test("the audit log holds both processes' writes, each with the key that made it", async () => {
    const made = await api(a.url, 'POST', '/api/keys', { name: 'writer', scopes: ['pixels:*'] });
    const key = made.body.apikey as string;
    assert.equal((await api(a.url, 'POST', '/api/pixel/add', { type: 'gapixel', name: 'on A', tag: 'G-A' }, key)).status, 200);
    assert.equal((await api(b.url, 'POST', '/api/pixel/add', { type: 'gapixel', name: 'on B', tag: 'G-B' }, key)).status, 200);
    const mine = async () => (await api(b.url, 'GET', `/api/audit?key=${made.body.id}`)).body.data.entries as { route: string; key_id: number }[];
    // Each process stores its buffer a second after its first entry.
    assert.ok(await waitFor(async () => (await mine()).length === 2, 5000), JSON.stringify(await mine()));
    assert.deepEqual((await mine()).map((e) => [e.route, e.key_id]), [['/api/pixel/add', made.body.id], ['/api/pixel/add', made.body.id]]);
  });
});
