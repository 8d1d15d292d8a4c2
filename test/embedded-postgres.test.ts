/**
 * The embedded PostgreSQL `npm test` starts when TEST_DATABASE_URL is unset (test/runner/): it starts
 * on a free port of 127.0.0.1, never as root, without durability, and leaves nothing behind; a
 * platform without a build, or a run that turns it off, gets a reason instead of an error; a run
 * that was killed has its cluster removed by the next one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres } from './runner/embedded-postgres.ts';
import { dataRoot, DIR_PREFIX, findBinaries } from './runner/pg-host.ts';
import { testDatabase } from './runner/test-database.ts';

const binaries = await findBinaries();
const skip = process.env.TEST_EMBEDDED_POSTGRES === 'off' ? 'TEST_EMBEDDED_POSTGRES=off' : typeof binaries === 'string' ? binaries : false;
if (skip) console.log(`# embedded PostgreSQL tests skipped (${skip})`);

test('starts on 127.0.0.1 as a user that is not root, fsync off; stop() ends it and removes its directory; a killed run\'s cluster goes at the next start', { skip }, async (t) => {
  // A cluster whose runner is gone (a pid that has exited), as a kill -9 of `npm test` leaves it.
  const gone = spawnSync('true').pid;
  const stale = join(dataRoot().dir, `${DIR_PREFIX}stale-${process.pid}`);
  mkdirSync(join(stale, 'data'), { recursive: true });
  writeFileSync(join(stale, 'runner.pid'), String(gone));

  const started = await startEmbeddedPostgres();
  if ('reason' in started) {
    // As npm test does: where it cannot start (no exec on the programs, a sandbox), the PostgreSQL
    // pass is skipped with one line, and so is this; what it does then is the next tests'.
    rmSync(stale, { recursive: true, force: true });
    console.log(`# embedded PostgreSQL tests skipped (${started.reason})`);
    t.skip(started.reason);
    return;
  }
  const { pg: cluster } = started;
  assert.equal(existsSync(stale), false, 'the killed run\'s cluster is removed');
  try {
    assert.match(cluster.url, new RegExp(`^postgres://postgres@127\\.0\\.0\\.1:${cluster.port}/postgres$`));
    assert.match(cluster.version, /^15\.\d+$/);
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    const { rows } = await client.query<Record<string, string>>(
      "SELECT current_setting('fsync') AS fsync, current_setting('listen_addresses') AS listen, current_setting('server_encoding') AS encoding, lower('ÀÉÎ') AS lowered",
    );
    await client.end();
    assert.deepEqual(rows[0], { fsync: 'off', listen: '127.0.0.1', encoding: 'UTF8', lowered: 'àéî' });
    if (process.platform === 'linux') {
      // The postmaster, which runs as long as the cluster does (a backend ends with its connection).
      const postmaster = readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0];
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${postmaster}/status`, 'utf8'))?.[1];
      assert.ok(uid !== undefined && uid !== '0', `PostgreSQL never runs as root (uid ${uid})`);
      if (process.getuid?.() !== 0) assert.equal(uid, String(process.getuid?.()), 'a normal user runs it as themselves');
    }
  } finally {
    await cluster.stop();
  }
  assert.equal(existsSync(cluster.dir), false, 'its directory is removed');
  const after = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 2000 });
  after.on('error', () => undefined);
  await assert.rejects(after.connect(), /ECONNREFUSED/);
});

test('no build for the platform: a reason naming the package, no error and no directory', async () => {
  const before = countClusters();
  const started = await startEmbeddedPostgres({ binariesPackage: '@embedded-postgres/no-such-platform' });
  assert.deepEqual(started, { reason: `no PostgreSQL build for ${process.platform}-${process.arch} (@embedded-postgres/no-such-platform is not installed)` });
  assert.equal(countClusters(), before);
});

test('the run\'s database: TEST_DATABASE_URL is used with synchronous_commit off unless it has options, named by its host; TEST_EMBEDDED_POSTGRES=off skips with the reason', async () => {
  const given = await testDatabase({ TEST_DATABASE_URL: 'postgres://ci:secret@db.example:6543/tests' });
  assert.ok('url' in given);
  assert.equal(given.url, 'postgres://ci:secret@db.example:6543/tests?options=-c%20synchronous_commit%3Doff');
  assert.equal(given.label, 'PostgreSQL at db.example:6543 (TEST_DATABASE_URL, synchronous_commit off)');
  assert.doesNotMatch(given.label, /secret/);
  const socket = await testDatabase({ TEST_DATABASE_URL: 'postgres://ci@/tests?host=/run/postgresql' });
  assert.ok('url' in socket && socket.url === 'postgres://ci@/tests?host=/run/postgresql&options=-c%20synchronous_commit%3Doff');
  assert.equal(socket.label, 'PostgreSQL at /run/postgresql (TEST_DATABASE_URL, synchronous_commit off)');
  const own = await testDatabase({ TEST_DATABASE_URL: 'postgres://ci@db/tests?options=-c%20work_mem%3D4MB' });
  assert.ok('url' in own && own.url === 'postgres://ci@db/tests?options=-c%20work_mem%3D4MB' && own.label === 'PostgreSQL at db (TEST_DATABASE_URL)');
  assert.deepEqual(await testDatabase({ TEST_EMBEDDED_POSTGRES: 'off' }), { skipped: 'TEST_DATABASE_URL is not set and TEST_EMBEDDED_POSTGRES=off' });
});

function countClusters(): number {
  return readdirSync(dataRoot().dir).filter((n) => n.startsWith(DIR_PREFIX)).length;
}
