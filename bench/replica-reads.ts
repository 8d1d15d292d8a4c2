/**
 * How many reads a streaming replica takes while the collection they read is written.
 *
 *   node --import tsx bench/replica-reads.ts [--seconds 4] [--sync-commit off]
 *
 * An embedded PostgreSQL of its own as the primary (`synchronous_commit` on, as in production,
 * unless told off) and a streaming replica of it (test/pg-replica.ts: pg_basebackup, needs the
 * machine's pg_basebackup and postgres of the same major version), both removed at the end. One
 * store reads from the replica (DATABASE_READ_URL's way) in a loop, a list of links and a user by
 * id, while links are created every 1000, 200 or 50 ms (or never). Prints, per row, the statements
 * the replica and the primary answered. A benchmark, not a test: nothing fails on a number.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { startReplica } from '../test/pg-replica.ts';
import { startEmbeddedPostgres } from '../test/runner/embedded-postgres.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '4' }, 'sync-commit': { type: 'string', default: 'on' } } });
const ms = Number(values.seconds) * 1000;

const primary = await startEmbeddedPostgres();
if ('reason' in primary) throw new Error(`no embedded PostgreSQL: ${primary.reason}`);
try {
  // The embedded cluster starts with synchronous_commit off; a database setting wins over the command line's.
  const admin = new pg.Client({ connectionString: primary.pg.url });
  await admin.connect();
  await admin.query(`ALTER DATABASE postgres SET synchronous_commit = ${values['sync-commit'] === 'off' ? 'off' : 'on'}`);
  await admin.end();
  const replica = await startReplica(primary.pg.url);
  if ('reason' in replica) throw new Error(`no replica: ${replica.reason}`);
  const store = await PostgresStore.open({ url: primary.pg.url, schema: 'replica_reads', collections: storeSchema(RESOURCES), poolSize: 4, readUrls: [replica.url] });
  try {
    const userId = (await store.transaction((tx) => tx.insert('users', { username: 'bench', email: 'bench@example.com' }))).id;
    let made = 0;
    console.log(`| links created every | creates | reads (list + user) | statements on the replica | on the primary | replica share |`);
    console.log(`| --- | --- | --- | --- | --- | --- |`);
    for (const every of [0, 1000, 200, 50]) {
      const replicaBefore = store.replicas()[0]!.reads;
      const primaryBefore = store.primaryReads;
      const end = Date.now() + ms;
      let creates = 0;
      const writer = (async () => {
        while (every > 0 && Date.now() < end) {
          await store.transaction((tx) => tx.insert('links', { userId, domainId: null, alias: `bench${made++}`, url: 'https://example.com/' }));
          creates++;
          await new Promise((resolve) => setTimeout(resolve, every));
        }
      })();
      let reads = 0;
      while (Date.now() < end) {
        await store.find('links', { limit: 25 });
        await store.get('users', userId);
        reads++;
      }
      await writer;
      const onReplica = store.replicas()[0]!.reads - replicaBefore;
      const onPrimary = store.primaryReads - primaryBefore;
      console.log(`| ${every ? `${every} ms` : 'never'} | ${creates} | ${reads} | ${onReplica} | ${onPrimary} | ${Math.round((100 * onReplica) / (onReplica + onPrimary))}% |`);
    }
  } finally {
    await store.close();
    await replica.remove();
  }
} finally {
  await primary.pg.stop();
}
