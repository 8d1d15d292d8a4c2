import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { dropPool, openPool, takePooled, givePooled, sweepLeftSchemas, testSchemaPrefix } from './schema-pool.ts';
import { freshSchema } from './backend.ts';
import { sql, withClient } from './pg-client.ts';

/**
 * `npm test`'s pool of emptied schemas (test/schema-pool.ts): a test process that is done gives its
 * stores' schemas back emptied, and the next one opens its store on one of them instead of a fresh
 * schema; what a process stored never reaches the next.
 */
const DATABASE = process.env.TEST_DATABASE_URL;
if (!DATABASE) console.log('schema-pool: the pool of test schemas is not tested (TEST_DATABASE_URL is not set)');
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `body` on a pool of its own, then drops it; the pool's table too when it was not there
 * before (under `npm test` it holds the run's own pool).
 */
async function onPool(run: string, body: () => Promise<void>): Promise<void> {
  const existed = (await sql("SELECT 1 FROM pg_namespace WHERE nspname = 'test_schema_pool'")).length > 0;
  await withClient(openPool);
  try {
    await body();
  } finally {
    await withClient((db: pg.Client) => dropPool(db, run, !existed));
  }
}

/** Runs, in a process of its own on the pool `run`, a test that opens a store, reports what it holds, then stores a user. */
function storeUser(run: string, email: string): Promise<string> {
  const script = `
    const { test } = await import('node:test');
    const { openTestStore } = await import('./test/backend.ts');
    const { allOf } = await import('./test/helpers.ts');
    test('stores one user', async () => {
      const store = await openTestStore();
      console.log('held ' + JSON.stringify((await allOf(store, 'users')).map((u) => u.email)));
      const made = await store.transaction((tx) => tx.insert('users', { email: ${JSON.stringify(email)}, username: 'u', key_hash: null }));
      console.log('id ' + made.id);
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, TEST_STORE: 'postgres', TEST_SCHEMA_POOL: run, TEST_SCHEMA_LOG: '', NODE_TEST_CONTEXT: '' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`)))));
}

test('a schema a test process is done with is emptied into the pool, and the next process opens its store on it', { skip: !DATABASE && 'TEST_DATABASE_URL is not set', timeout: 60_000 }, async () => {
  const run = `schema-pool-test/${process.pid}-${Date.now()}`;
  let pooledName = '';
  await onPool(run, async () => {
    const first = await storeUser(run, 'first@example.com');
    assert.match(first, /held \[\]/);
    assert.match(first, /id 1\b/);
    const pooled = await sql<{ name: string }>('SELECT name FROM test_schema_pool.spare WHERE run = $1', [run]);
    assert.equal(pooled.length, 1, 'the first process gave its schema back');
    const name = pooled[0]!.name;
    assert.deepEqual(await sql(`SELECT email FROM "${name}".users`), [], 'emptied as it was given back');
    assert.equal((await sql<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}".schema_migrations`))[0]!.n > 10, true, 'still migrated');

    // The next process starts on that schema: nothing of the first's, its ids from 1 again.
    const second = await storeUser(run, 'second@example.com');
    assert.match(second, /held \[\]/);
    assert.match(second, /id 1\b/);
    assert.deepEqual((await sql<{ name: string }>('SELECT name FROM test_schema_pool.spare WHERE run = $1', [run])).map((r) => r.name), [name], 'the same schema, given back again');
    pooledName = name;
  });
  assert.deepEqual(await sql('SELECT nspname FROM pg_namespace WHERE nspname = $1', [pooledName]), [], 'dropping the pool drops its schemas');
});

test('two processes taking from the pool at once never get the same schema', { skip: !DATABASE && 'TEST_DATABASE_URL is not set' }, async () => {
  const run = `schema-pool-test/${process.pid}-${Date.now()}-take`;
  await onPool(run, async () => {
    await withClient(async (db) => {
      for (const name of ['pool_test_a', 'pool_test_b', 'pool_test_c']) {
        await db.query(`CREATE SCHEMA IF NOT EXISTS "${name}"`);
        await givePooled(db, run, name);
      }
    });
    const taken = await Promise.all([0, 1, 2, 3].map(() => withClient((db) => takePooled(db, run))));
    assert.deepEqual(taken.filter(Boolean).sort(), ['pool_test_a', 'pool_test_b', 'pool_test_c']);
    assert.equal(taken.filter((t) => t === undefined).length, 1, 'the fourth found none');
    await withClient((db) => givePooled(db, run, 'pool_test_a'));
  });
  assert.deepEqual(await sql("SELECT nspname FROM pg_namespace WHERE nspname = 'pool_test_a'"), [], 'dropping the pool drops its schemas');
  for (const name of ['pool_test_b', 'pool_test_c']) await sql(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
});

test("a run of this host that is gone leaves its pool to the next run's start: its schemas dropped, the pool kept in use", { skip: !DATABASE && 'TEST_DATABASE_URL is not set' }, async () => {
  // A process that has exited: its pid names a run that is gone.
  const gone = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => gone.on('exit', resolve));
  const dead = `${hostname()}/${gone.pid}`;
  const run = `schema-pool-test/${process.pid}-${Date.now()}-sweep`;
  await onPool(run, async () => {
    await withClient(async (db) => {
      for (const name of ['pool_test_gone_a', 'pool_test_gone_b']) {
        await db.query(`CREATE SCHEMA IF NOT EXISTS "${name}"; CREATE TABLE "${name}".t (id int)`);
        await givePooled(db, dead, name);
      }
      await openPool(db);
      assert.deepEqual((await db.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pool_test_gone_%'")).rows, [], 'its schemas are dropped');
      assert.deepEqual((await db.query('SELECT name FROM test_schema_pool.spare WHERE run = $1', [dead])).rows, []);
      // The pool itself is still there for the run that swept it.
      await db.query('CREATE SCHEMA IF NOT EXISTS pool_test_kept');
      await givePooled(db, run, 'pool_test_kept');
      assert.equal(await takePooled(db, run), 'pool_test_kept');
      await db.query('DROP SCHEMA pool_test_kept');
    });
  });
});

test('schemas left by a run stopped before its end are dropped at the next start; a live run\'s and another host\'s are kept', { skip: !DATABASE && 'TEST_DATABASE_URL is not set' }, async () => {
  const prefix = testSchemaPrefix();
  assert.ok(freshSchema().startsWith(prefix), 'a test process names its schemas after its host and owner');
  const [, host, owner] = prefix.split('_');
  assert.equal(Number(owner), process.env.TEST_SCHEMA_POOL ? Number.parseInt(process.env.TEST_SCHEMA_POOL.split('/').pop()!, 10) : process.pid, 'the owner: the run, or this process alone');
  // A process that has ended: its pid is free.
  const ended = spawn(process.execPath, ['-e', '0']);
  const gone = ended.pid!;
  await new Promise((resolve) => ended.on('exit', resolve));
  const left = `t_${host}_${gone}_${gone}_1_sweep`;
  const live = `t_${host}_${process.pid}_${process.pid}_1_sweep`;
  const elsewhere = `t_${host === 'ffffff' ? 'eeeeee' : 'ffffff'}_${gone}_${gone}_1_sweep`;
  for (const name of [left, live, elsewhere]) await sql(`CREATE SCHEMA "${name}"; CREATE TABLE "${name}".t (id int)`);
  try {
    const dropped = await withClient(sweepLeftSchemas);
    assert.ok(dropped >= 1, `${dropped} dropped`);
    const names = (await sql<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE nspname = ANY($1::text[]) ORDER BY 1', [[left, live, elsewhere]])).map((r) => r.nspname);
    assert.deepEqual(names, [live, elsewhere].sort());
  } finally {
    for (const name of [left, live, elsewhere]) await sql(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  }
});
