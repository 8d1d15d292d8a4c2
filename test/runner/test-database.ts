/**
 * Which PostgreSQL the PostgreSQL pass runs on: the one TEST_DATABASE_URL names (CI: the machine's),
 * else an embedded one started for the run, else none, with the reason the pass is skipped.
 */
import pg from 'pg';
import { parseDatabaseUrl } from '../../src/database-url.ts';
import { dropPool, openPool, poolRunName } from '../schema-pool.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

/** The database of the run, how to name it in one line, and how to give it back. */
export interface TestDatabase {
  url: string;
  label: string;
  stop: () => Promise<void>;
  /** Started for this run and removed with everything in it at its end (the embedded one). */
  throwaway?: boolean;
}

/** The run's PostgreSQL, or the reason there is none. */
export async function testDatabase(env: NodeJS.ProcessEnv = process.env): Promise<TestDatabase | { skipped: string }> {
  const given = env.TEST_DATABASE_URL;
  if (given) {
    const parsed = parseDatabaseUrl(given);
    const where = parsed ? `${parsed.host || 'the default socket'}${parsed.url.port ? `:${parsed.url.port}` : ''}` : 'an unreadable URL';
    // The tests' commits do not wait for the disk (as on the embedded one, whose fsync is off):
    // nothing a test proves needs PostgreSQL itself to survive a crash. A URL with options of its own keeps them.
    if (/[?&]options=/.test(given)) return { url: given, label: `PostgreSQL at ${where} (TEST_DATABASE_URL)`, stop: async () => undefined };
    const url = `${given}${given.includes('?') ? '&' : '?'}options=-c%20synchronous_commit%3Doff`;
    return { url, label: `PostgreSQL at ${where} (TEST_DATABASE_URL, synchronous_commit off)`, stop: async () => undefined };
  }
  if (env.TEST_EMBEDDED_POSTGRES === 'off') return { skipped: 'TEST_DATABASE_URL is not set and TEST_EMBEDDED_POSTGRES=off' };
  const started = await startEmbeddedPostgres();
  if ('reason' in started) return { skipped: `TEST_DATABASE_URL is not set and no embedded PostgreSQL could start: ${started.reason}` };
  const { pg } = started;
  const where = pg.inMemory ? 'data in memory' : `data in ${pg.dir}`;
  return { url: pg.url, label: `embedded PostgreSQL ${pg.version} on port ${pg.port} (${where}, fsync off)`, stop: pg.stop, throwaway: true };
}

/**
 * The run's pool of emptied schemas on the run's database (test/schema-pool.ts): made now, and
 * `close` drops what is left in it (on a throwaway database it goes with the database). Null when
 * it cannot be made: every test process then migrates its own schemas.
 */
export async function openRunPool(database: TestDatabase): Promise<{ run: string; close: () => Promise<void> } | null> {
  const run = poolRunName();
  const db = new pg.Client({ connectionString: database.url });
  try {
    await db.connect();
    await openPool(db);
  } catch (err) {
    console.log(`# no pool of test schemas (${(err as Error).message}): each test process migrates its own`);
    await db.end().catch(() => {});
    return null;
  }
  return {
    run,
    close: async () => {
      if (!database.throwaway) await dropPool(db, run).catch((err: Error) => console.log(`# the pool of test schemas was not dropped: ${err.message}`));
      await db.end().catch(() => {});
    },
  };
}
