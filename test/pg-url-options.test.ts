import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { clientConfig, urlOptions } from '../src/store/postgres/pool.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { freshSchema } from './backend.ts';
import { withClient } from './pg-client.ts';

/**
 * A DATABASE_URL may carry server settings (`?options=-c …`, as libpq reads them): node-postgres
 * lets them replace the client's own options, which hold the store's search_path. The store puts
 * the URL's settings first and its schema last, so its tables stay in DATABASE_SCHEMA.
 */
const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-url-options: PostgreSQL URL option tests skipped (TEST_DATABASE_URL is not set)');

/** `url` with `options` added to its query. */
function withOptions(url: string, options: string): string {
  const u = new globalThis.URL(url);
  u.searchParams.set('options', options);
  return u.href;
}

test('urlOptions takes the options parameter out of a URL and leaves the rest as it was', () => {
  assert.deepEqual(urlOptions('postgres://app:pw@db:5432/links'), { url: 'postgres://app:pw@db:5432/links', options: '' });
  assert.deepEqual(urlOptions('postgres://app@db/links?sslmode=require&options=-c%20work_mem%3D8MB'), { url: 'postgres://app@db/links?sslmode=require', options: '-c work_mem=8MB' });
  assert.deepEqual(urlOptions('postgres:///links?host=/run/postgresql&options=-c%20statement_timeout%3D5000'), { url: 'postgres:///links?host=/run/postgresql', options: '-c statement_timeout=5000' });
  assert.deepEqual(urlOptions('not a url'), { url: 'not a url', options: '' });
  const config = clientConfig({ url: 'postgres://db/links?options=-c%20work_mem%3D8MB', schema: 'shortlink', applicationName: 'x', connectTimeoutMs: 1000, statementTimeoutMs: 1000 });
  assert.equal(config.options, '-c work_mem=8MB -c search_path=shortlink');
  assert.equal(config.connectionString, 'postgres://db/links');
});

test('a store on a URL with server options keeps its tables in its schema and its sessions get the options', { skip: URL ? false : 'TEST_DATABASE_URL is not set' }, async (t) => {
  const schema = freshSchema();
  const url = withOptions(URL!, '-c work_mem=5MB -c search_path=public');
  const store = await PostgresStore.open({ url, schema, collections: storeSchema(RESOURCES), poolSize: 2, listen: false });
  t.after(() => store.close());
  const email = `${schema}@example.com`;
  const user = await store.transaction((tx) => tx.insert('users', { username: schema, email, keyHash: `hash-${schema}` }));
  await withClient(async (c) => {
    const { rows } = await c.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".users WHERE id = $1`, [user.id]);
    assert.equal(Number(rows[0]!.n), 1, 'the record is in the store\'s schema');
    // The URL's search_path (public) did not win: nothing of this store is there.
    const inPublic = await c.query<{ t: string | null }>(`SELECT to_regclass('public.users')::text AS t`);
    if (inPublic.rows[0]!.t !== null) assert.equal((await c.query(`SELECT 1 FROM public.users WHERE data ->> 'email' = $1`, [email])).rowCount, 0);
  });
  const client = new pg.Client(clientConfig({ url, schema, applicationName: 'url-options-test', connectTimeoutMs: 5000, statementTimeoutMs: 5000 }));
  await client.connect();
  try {
    const settings = await client.query<{ work_mem: string; search_path: string }>('SELECT current_setting($1) AS work_mem, current_setting($2) AS search_path', ['work_mem', 'search_path']);
    assert.deepEqual(settings.rows[0], { work_mem: '5MB', search_path: schema });
  } finally {
    await client.end();
  }
});
