import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { aliasKey } from '../src/links/alias.ts';
import { storeReadiness } from '../src/http/ready-route.ts';
import { silentLogger } from '../src/log.ts';
import type { Logger } from '../src/log.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { withStoreDeadline } from '../src/store/deadline.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { ReplicaState } from '../src/store/store.ts';
import { startEmbeddedPostgres } from './runner/embedded-postgres.ts';
import type { EmbeddedPostgres } from './runner/embedded-postgres.ts';
import { replicationRefusal, startReplica } from './pg-replica.ts';
import type { StreamingReplica } from './pg-replica.ts';
import { api } from './process-helpers.ts';
import { startPgServer, stop, viaPort, waitFor } from './pg-server.ts';
import { TcpProxy } from './tcp-proxy.ts';

/**
 * Read replicas (DATABASE_READ_URL) against a real streaming replica: pg_basebackup of the test
 * database's server (or, when that server refuses replication, of an embedded PostgreSQL of this
 * file's own), started on its own port and removed afterwards. Which pool answered is counted
 * (ReplicaState.reads, PostgresStore.primaryReads); pausing the replica's replay makes a row that
 * only the primary holds tell the two apart. Skipped with one line where no replica can be had.
 */
const DATABASE_URL = process.env.TEST_DATABASE_URL;

let primaryUrl = '';
let embedded: EmbeddedPostgres | null = null;
let replica: StreamingReplica | null = null;
let skip: string | false = DATABASE_URL ? false : 'TEST_DATABASE_URL is not set';
const schema = `t_replica_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
/** The server process's own (its admin is made on an empty store). */
const serverSchema = `${schema}_server`;
const stores: PostgresStore[] = [];

before(async () => {
  if (skip) return console.log(`read replica tests skipped: ${skip}`);
  primaryUrl = DATABASE_URL!;
  const refusal = await replicationRefusal(primaryUrl);
  if (refusal) {
    // The machine's server need not allow replication; a cluster of our own does (initdb's pg_hba.conf).
    const started = await startEmbeddedPostgres();
    if ('reason' in started) {
      skip = `the test database cannot be replicated (${refusal}) and no embedded PostgreSQL started (${started.reason})`;
      return console.log(`read replica tests skipped: ${skip}`);
    }
    embedded = started.pg;
    primaryUrl = embedded.url;
  }
  const made = await startReplica(primaryUrl);
  if ('reason' in made) skip = made.reason;
  else replica = made;
  if (skip) console.log(`read replica tests skipped: ${skip}`);
  else console.log(`read replica tests: a streaming replica of ${embedded ? `an embedded PostgreSQL ${embedded.version} (the test database refuses replication)` : new URL(primaryUrl).host}`);
});

after(async () => {
  for (const store of stores) await store.close();
  await replica?.remove();
  if (embedded) await embedded.stop();
  else if (primaryUrl) {
    const client = new pg.Client({ connectionString: primaryUrl });
    await client.connect();
    for (const name of [schema, serverSchema]) await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    await client.end();
  }
});

/** A logger that keeps its warnings and notices (all but the schema's migration). */
function keptLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (msg: string, extra?: Record<string, unknown>) => void (msg.includes('migrated') || lines.push(`${msg} ${JSON.stringify(extra ?? {})}`));
  return { ...silentLogger, info: keep, warn: keep, lines };
}

/** A store on the test schema reading from the replica; a replica further behind than `maxLagMs` is skipped. */
async function openStore(maxLagMs: number, log: Logger = silentLogger): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url: primaryUrl, schema, collections: storeSchema(RESOURCES), poolSize: 3, readUrls: [replica!.url], readMaxLagMs: maxLagMs, log });
  stores.push(store);
  return store;
}

const stateOf = (store: PostgresStore): ReplicaState => store.replicas()[0]!;

/** Runs the store's check until `ok` says yes (false after 10 s). */
async function until(store: PostgresStore, ok: (s: ReplicaState) => boolean): Promise<boolean> {
  return waitFor(async () => {
    await store.checkReplicas();
    return ok(stateOf(store));
  }, 10_000);
}

/**
 * Runs the store's check until `read` is answered by the replica (false after 10 s): the replica
 * then holds every write of what it reads. (Its lag need not reach 0 meanwhile: on a server that
 * other tests write to all the time, the replica is always a little behind the newest round.)
 */
async function servedByReplica(store: PostgresStore, read: () => Promise<unknown>): Promise<boolean> {
  return waitFor(async () => {
    await store.checkReplicas();
    return (await answeredBy(store, read)).by === 'replica';
  }, 10_000);
}

/** Runs `read` and says which pool answered it: the replica, the primary, or (wrongly) both or neither. */
async function answeredBy<R>(store: PostgresStore, read: () => Promise<R>): Promise<{ by: string; result: R }> {
  const replicaBefore = stateOf(store).reads;
  const primaryBefore = store.primaryReads;
  const result = await read();
  const onReplica = stateOf(store).reads - replicaBefore;
  const onPrimary = store.primaryReads - primaryBefore;
  return { by: onReplica === 1 && onPrimary === 0 ? 'replica' : onPrimary === 1 && onReplica === 0 ? 'primary' : `replica ${onReplica}, primary ${onPrimary}`, result };
}

describe('read replicas', () => {
  test('reads go to a replica that holds every write seen; own and heard writes are read from the primary until it does', async (t) => {
    if (skip) return t.skip(skip);
    const log = keptLog();
    const a = await openStore(60_000, log);
    const b = await openStore(60_000);
    const userId = (await a.transaction((tx) => tx.insert('users', { username: 'replica', email: 'replica@example.com' }))).id;
    assert.ok(await servedByReplica(a, () => a.get('users', userId)), 'the replica catches up with the user');
    assert.ok(await servedByReplica(b, () => b.get('users', userId)));

    // Lists, lookups and statistics of data the replica holds are read there.
    assert.equal((await answeredBy(a, () => a.find('links'))).by, 'replica');
    assert.equal((await answeredBy(a, () => a.get('users', userId))).by, 'replica');
    assert.equal((await answeredBy(a, () => a.countedDays('link:1'))).by, 'replica');
    const missing = await answeredBy(b, () => b.lookup('links', 'alias', aliasKey(null, 'fresh')));
    assert.deepEqual(missing, { by: 'replica', result: undefined }, "b's lookup cache keeps the miss");

    // With replay paused, what is written now exists on the primary only.
    await replica!.sql('SELECT pg_wal_replay_pause()');
    const bVersion = b.version('links');
    const link = await a.transaction((tx) => tx.insert('links', { userId, domainId: null, alias: 'fresh', url: 'https://example.com/fresh' }));
    const own = await answeredBy(a, () => a.get('links', link.id));
    assert.equal(own.by, 'primary', 'a write is read back from the primary');
    assert.equal(own.result?.alias, 'fresh');
    assert.equal((await answeredBy(a, () => a.find('links'))).result.total, 1);
    // Another process hears of the write; its cache is dropped and refilled from the primary.
    assert.ok(await waitFor(() => b.version('links') > bVersion, 5000), 'b hears of the write');
    const heard = await answeredBy(b, () => b.lookup('links', 'alias', aliasKey(null, 'fresh')));
    assert.equal(heard.by, 'primary');
    assert.equal(heard.result?.id, link.id);
    // Collections nobody wrote are still read on the replica (its lag is under 60 s).
    assert.equal((await answeredBy(a, () => a.count('users'))).by, 'replica');
    const behind = await replica!.sql('SELECT count(*)::int AS n FROM ' + schema + '.links');
    assert.deepEqual(behind, [{ n: 0 }], 'the paused replica does not hold the link');

    await replica!.sql('SELECT pg_wal_replay_resume()');
    assert.ok(await servedByReplica(a, () => a.count('links')));
    const caughtUp = await answeredBy(a, () => a.find('links'));
    assert.equal(caughtUp.by, 'replica', 'once replayed, the link is read on the replica');
    assert.deepEqual(caughtUp.result.items.map((l) => l.alias), ['fresh']);
    assert.deepEqual(log.lines, [], 'nothing lagged or fell');
  });

  test('a replica further behind than the bound is skipped with one log line, and serves again once it catches up', async (t) => {
    if (skip) return t.skip(skip);
    const log = keptLog();
    const store = await openStore(1000, log);
    assert.ok(await until(store, (s) => s.state === 'ok'));
    // Lines from here on: before the pause, a replica of a busy server may have lagged a moment.
    const from = log.lines.length;
    await replica!.sql('SELECT pg_wal_replay_pause()');
    try {
      // The primary's WAL moves on; the replica does not replay it.
      await store.transaction((tx) => tx.insert('users', { username: 'lag', email: 'lag@example.com' }));
      assert.ok(await until(store, (s) => s.state === 'lagging'), 'the paused replica is found lagging');
      assert.ok(stateOf(store).lagMs! > 1000);
      assert.equal((await answeredBy(store, () => store.count('links'))).by, 'primary', 'a collection nobody wrote is read on the primary too');
      const ready = await storeReadiness(store, { databaseTimeout: 2 }).state();
      assert.equal(ready.ready, true);
      assert.equal(ready.checks[`replica ${stateOf(store).name}`], 'lagging');
      await store.checkReplicas();
      assert.deepEqual(log.lines.slice(from).map((l) => /^PostgreSQL replica lags:/.test(l)), [true], log.lines.join('\n'));
    } finally {
      await replica!.sql('SELECT pg_wal_replay_resume()');
    }
    assert.ok(await servedByReplica(store, () => store.count('links')), 'caught up, it serves reads again');
    assert.equal(log.lines.length, from + 2, log.lines.join('\n'));
    assert.match(log.lines[from + 1]!, /serves reads again/);
  });

  test("a replica gone silent takes at most half of a read's wait: the primary answers in the rest, and the replica is skipped", async (t) => {
    if (skip) return t.skip(skip);
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(replica!.url).port));
    t.after(() => proxy.close());
    const log = keptLog();
    const store = await PostgresStore.open({ url: primaryUrl, schema, collections: storeSchema(RESOURCES), poolSize: 2, readUrls: [viaPort(replica!.url, proxy.port)], readMaxLagMs: 60_000, log });
    stores.push(store);
    assert.ok(await servedByReplica(store, () => store.count('links')));
    proxy.stall();
    // Without the halving, the silent replica would take the whole 3 s and the read would fail unavailable.
    const read = await answeredBy(store, () => withStoreDeadline(3000, () => store.find('links')));
    assert.equal(read.by, 'primary');
    assert.deepEqual(read.result.items.map((l) => l.alias), ['fresh']);
    assert.equal(stateOf(store).state, 'down');
    assert.equal((await answeredBy(store, () => withStoreDeadline(3000, () => store.count('links')))).by, 'primary', 'skipped from then on');
    assert.equal(log.lines.length, 1, log.lines.join('\n'));
    assert.match(log.lines[0]!, /replica does not answer/);
    proxy.heal();
    await proxy.restore();
  });

  test('a stopped replica is skipped with one log line; every read goes to the primary and the store (and a server) stays up', async (t) => {
    if (skip) return t.skip(skip);
    const log = keptLog();
    const store = await openStore(60_000, log);
    assert.ok(await servedByReplica(store, () => store.count('links')));
    assert.equal((await answeredBy(store, () => store.find('links'))).by, 'replica');
    // A server configured as an operator would: its own writes are read back at once, /ready names the replica.
    const server = await startPgServer(serverSchema, primaryUrl, { DATABASE_READ_URL: replica!.url, DATABASE_POOL: '2' });
    t.after(() => stop(server));
    const name = `replica ${stateOf(store).name}`;
    const made = await api(server.url, 'POST', '/api/url/add', { url: 'https://example.com/served', custom: 'served' });
    assert.equal(made.status, 200);
    const redirect = await fetch(`${server.url}/served`, { redirect: 'manual' });
    assert.equal(redirect.status, 302, 'a link is followed the moment it is made');
    assert.equal(redirect.headers.get('location'), 'https://example.com/served');
    const serverReady = await fetch(`${server.url}/ready`);
    assert.deepEqual(await serverReady.json(), { status: 'ready', checks: { store: 'ok', [name]: 'ok' } });
    const sessions = await replica!.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'shortlink-server/${serverSchema}/replica-reads'`);
    assert.ok((sessions[0]!.n as number) >= 1, 'the server reads on the replica');

    await replica!.stop();
    // The first read after the stop finds it gone (on the replica's pooled connection) and is answered by the primary.
    const first = await answeredBy(store, () => store.find('links'));
    assert.equal(first.result.total, 1);
    assert.equal(stateOf(store).state, 'down');
    for (let i = 0; i < 5; i++) {
      await store.checkReplicas();
      // lookupMany: the lookup cache is neither read nor filled, so every one is a statement.
      const read = await answeredBy(store, () => store.lookupMany('links', 'alias', [aliasKey(null, 'fresh')]));
      assert.equal(read.by, 'primary');
      assert.equal(read.result.get(aliasKey(null, 'fresh'))?.alias, 'fresh');
    }
    assert.equal(log.lines.length, 1, log.lines.join('\n'));
    assert.match(log.lines[0]!, /replica does not answer/);
    assert.doesNotMatch(log.lines[0]!, /password/);
    const ready = await storeReadiness(store, { databaseTimeout: 2 }).state();
    assert.equal(ready.ready, true, 'the instance serves without its replica');
    assert.equal(ready.checks.store, 'ok');
    assert.equal(ready.checks[name], 'unavailable');

    // The server: its reads on the primary, one line for the replica, /ready still 200.
    const list = await api(server.url, 'GET', '/api/urls');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.urls.map((u: { alias: string }) => u.alias), ['served']);
    assert.equal((await fetch(`${server.url}/served`, { redirect: 'manual' })).status, 302);
    assert.ok(await waitFor(async () => (await (await fetch(`${server.url}/ready`)).json()).checks[name] === 'unavailable', 5000), '/ready reports the replica gone');
    const after = await fetch(`${server.url}/ready`);
    assert.equal(after.status, 200);
    assert.equal(server.output().split('\n').filter((l) => l.includes('replica does not answer')).length, 1, server.output());
  });
});
