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

/** A statement node-postgres sent: its text and values. */
export interface SentQuery {
  text: string;
  values: unknown[];
}

/** Records every statement any node-postgres client of this process sends, until `restore()`. */
export function recordQueries(): { sent: SentQuery[]; restore: () => void } {
  const sent: SentQuery[] = [];
  const query = pg.Client.prototype.query;
  (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: unknown, ...a: unknown[]) {
    const q = a[0] as string | { text: string; values?: unknown[] };
    sent.push(typeof q === 'string' ? { text: q, values: (a[1] as unknown[]) ?? [] } : { text: q.text, values: q.values ?? (a[1] as unknown[]) ?? [] });
    return (query as (...b: unknown[]) => unknown).apply(this, a);
  };
  return { sent, restore: () => void (pg.Client.prototype.query = query) };
}
