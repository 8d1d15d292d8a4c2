import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';
import { describeUrl, storeError } from './errors.ts';
import { recountWith } from './kept-counts.ts';
import type { Recounted } from './kept-counts.ts';
import { checkSchemaName, clientConfig } from './pool.ts';
import type { ConnectionSettings } from './pool.ts';
import { ident } from './tables.ts';

/** One migration file: `NNN-name.sql` in ./migrations/, applied once, in order, never edited once released. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** What a migration run did. */
export interface MigrationResult {
  /** The highest version before and after. */
  from: number;
  to: number;
  applied: string[];
  /** With `recount`: each counted table's kept total before and after it was rebuilt from the rows. */
  recounted?: Recounted[];
}

/** What a migration run does besides migrating. */
export interface MigrateOptions {
  /** Rebuild the kept counts from the rows afterwards (kept-counts.ts, recountWith). */
  recount?: boolean;
}

/** A database migrated past what this code knows: running it could corrupt data the newer server wrote. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
  ) {
    super(`The database schema is at version ${databaseVersion}, newer than this server's ${codeVersion}: upgrade the server.`);
    this.name = 'SchemaTooNewError';
  }
}

// Any constant will do, as long as only migrations use it: instances starting together queue on it.
const MIGRATION_LOCK = 0x53484c4b;
const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** The migration files shipped with this code, in version order. */
export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const out: Migration[] = [];
  for (const file of (await readdir(dir)).sort()) {
    const m = /^(\d{3})-([a-z0-9-]+)\.sql$/.exec(file);
    if (!m) continue;
    out.push({ version: Number(m[1]), name: m[2]!, sql: await readFile(new URL(file, dir), 'utf8') });
  }
  out.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.version}-${m.name}: versions must run 1, 2, 3… without gaps or repeats`);
  });
  return out;
}

/**
 * Brings `schema` up to the newest migration on an open client, in one transaction under an
 * advisory lock: instances starting together wait for the first, then find nothing left to do.
 * Throws SchemaTooNewError when the database is ahead of the code.
 */
export async function migrateWith(client: pg.ClientBase, schema: string, migrations: readonly Migration[]): Promise<MigrationResult> {
  const codeVersion = migrations.at(-1)?.version ?? 0;
  // READ COMMITTED whatever the database's default: a migration that counts rows (006) must see
  // those that writers committed while it waited for its locks.
  await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
  try {
    // A migration on a large table may outlast the statement timeout meant for requests.
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SET LOCAL lock_timeout = 60000');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${ident(checkSchemaName(schema))}`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    const from = rows[0]?.v ?? 0;
    if (from > codeVersion) throw new SchemaTooNewError(from, codeVersion);
    const applied: string[] = [];
    for (const m of migrations) {
      if (m.version <= from) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(`${String(m.version).padStart(3, '0')}-${m.name}`);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, codeVersion), applied };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/** Migrates with a connection of its own: no client-side query timeout, as a lock wait may last until another instance is done. */
export async function migrateDatabase(settings: ConnectionSettings, options: MigrateOptions = {}): Promise<MigrationResult> {
  const where = describeUrl(settings.url);
  const migrations = await loadMigrations();
  const client = new pg.Client({ ...clientConfig(settings), query_timeout: undefined });
  // A connection lost while migrating is reported by the query that fails; the event must not crash.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw storeError(err, where, new Map());
  }
  try {
    const result = await migrateWith(client, settings.schema, migrations);
    if (!options.recount) return result;
    return { ...result, recounted: await recountWith((text, values) => client.query(text, values) as never) };
  } catch (err) {
    throw storeError(err, where, new Map());
  } finally {
    await client.end().catch(() => {});
  }
}

/** The `migrate` command: brings the database at `url` (tables in `schema`) up to this code's schema. */
export function migrate(url: string, schema = 'public', options: MigrateOptions = {}): Promise<MigrationResult> {
  return migrateDatabase({ url, schema, applicationName: 'shortlink-server migrate', connectTimeoutMs: 2000, statementTimeoutMs: 5000 }, options);
}
