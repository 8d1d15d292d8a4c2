/**
 * Real server processes on PostgreSQL for the fault tests: each on a schema of freshSchema()
 * (dropped after the file), plus a connection of the test's own to look at what was stored.
 */
import { freshSchema } from './backend.ts';
import { sql } from './pg-client.ts';
import { startProcess } from './process-helpers.ts';
import type { ServerProcess } from './process-helpers.ts';

export { sql, withClient } from './pg-client.ts';

/** The database of these tests, or undefined when they are skipped. */
export const DATABASE_URL = process.env.TEST_DATABASE_URL;

/** A schema of its own for one test, dropped after the file's tests. */
export const newSchema = (): string => freshSchema();

/** What a server on `schema` shows in pg_stat_activity (see PostgresStore.open). */
export const appName = (schema: string): string => `shortlink-server/${schema}`;

/** `DATABASE_URL` with another host and port (a proxy in front of the database). */
export function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

/** Clicks of a subject ('link:3') stored in `schema`, all days: what survives the process. */
export async function storedClicks(schema: string, subject: string): Promise<number> {
  const rows = await sql<{ n: number }>(
    `SELECT coalesce(sum(c.n), 0)::int AS n FROM "${schema}".stat_counts c JOIN "${schema}".stat_days d ON d.id = c.day_id
     WHERE d.subject = $1 AND c.metric = 'clicks' AND c.is_total`,
    [subject],
  );
  return rows[0]!.n;
}

/** Terminates every connection a server on `schema` holds; returns how many. */
export async function terminateServerConnections(schema: string): Promise<number> {
  const rows = await sql<{ n: number }>('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [appName(schema)]);
  return rows[0]!.n;
}

/** Starts a server process on `schema` (through `url`, default the test database). */
export function startPgServer(schema: string, url = DATABASE_URL!, env: Record<string, string> = {}): Promise<ServerProcess> {
  // DATA_DIR is not used on PostgreSQL; a path that cannot exist shows it.
  return startProcess('/nonexistent/shortlink-data', { DATABASE_URL: url, DATABASE_SCHEMA: schema, DATABASE_POOL: '4', ...env });
}

/** Stops a server with `signal` and resolves with its exit code (null when killed by the signal). */
export async function stop(server: ServerProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  return server.exit;
}

/** Polls `check` every 50 ms until it returns true, for at most `ms`; returns whether it did. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
