/**
 * A connection of the test's own to the test database (TEST_DATABASE_URL), outside any store: to
 * look at what was stored. Starts nothing, so a file that needs only this shares a process with
 * others (test/runner/groups.ts); pg-server.ts, for the tests of server processes, re-exports it.
 */
import pg from 'pg';

/** Runs `fn` on a connection of the test's own (outside any store), closed after. */
export async function withClient<R>(fn: (client: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Runs one statement on a connection of the test's own. */
export async function sql<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
  return withClient(async (client) => (await client.query<R>(text, values)).rows);
}
