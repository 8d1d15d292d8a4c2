import { loadConfig, processEnv } from '../config.ts';

/** What `migrate --help` prints. */
export const MIGRATE_HELP = `Bring the PostgreSQL schema up to this version of the server, and say what was applied.
Usage: npm run cli -- migrate [--database-url <postgres://…>] [--database-schema <name>]

The server also migrates at start (once, whoever starts first); this runs it ahead, e.g. before a
rolling upgrade. The JSON files need no migration. Exit codes: 0 done, 1 failed, 2 bad command line.`;

/** The `migrate` command: applies the migrations the database lacks; returns the exit code. */
export async function runMigrate(argv: string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  if (argv.includes('--help')) {
    out(MIGRATE_HELP);
    return 0;
  }
  const config = loadConfig(processEnv(), argv);
  if (!config.databaseUrl) {
    err('migrate needs DATABASE_URL (or --database-url): the JSON files of DATA_DIR need no migration.');
    return 2;
  }
  // Loaded only here: the JSON-file server never loads the driver.
  const { migrate } = await import('../store/postgres/migrate.ts');
  const result = await migrate(config.databaseUrl, config.databaseSchema);
  if (result.applied.length === 0) out(`The database schema is at version ${result.to}: nothing to do.`);
  else out(`Migrated the database schema from version ${result.from} to ${result.to}: ${result.applied.join(', ')}`);
  return 0;
}
