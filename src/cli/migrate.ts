import { UnknownOptionError, knownFlags, loadConfig, processEnv, unknownOption } from '../config.ts';
import type { Config } from '../config.ts';

/** What `migrate --help` prints. */
export const MIGRATE_HELP = `Bring the PostgreSQL schema up to this version of the server, and say what was applied.
Usage: npm run cli -- migrate [--database-url <postgres://…>] [--database-schema <name>] [--recount]

The server also migrates at start (once, whoever starts first); this runs it ahead, e.g. before a
rolling upgrade. The JSON files need no migration.
--recount  then rebuilds the list totals PostgreSQL keeps (kept_counts) from the rows themselves,
           and each link's clicks total (link_clicks) from the statistics: needed after a
           data-only restore (pg_restore --data-only), which doubles them. Writes wait while it runs.
Exit codes: 0 done, 1 failed, 2 bad command line.`;

/** The `migrate` command: applies the migrations the database lacks; returns the exit code. */
export async function runMigrate(argv: string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  if (argv.includes('--help')) {
    out(MIGRATE_HELP);
    return 0;
  }
  const recount = argv.includes('--recount');
  let config: Config;
  try {
    config = loadConfig(processEnv(), argv.filter((a) => a !== '--recount'));
  } catch (e) {
    if (!(e instanceof UnknownOptionError)) throw e;
    err(e.flag ? unknownOption(e.flag, [...knownFlags(), '--recount']).message : e.message);
    return 2;
  }
  if (!config.databaseUrl) {
    err('migrate needs DATABASE_URL (or --database-url): the JSON files of DATA_DIR need no migration.');
    return 2;
  }
  // Loaded only here: the JSON-file server never loads the driver.
  const { migrate } = await import('../store/postgres/migrate.ts');
  const result = await migrate(config.databaseUrl, config.databaseSchema, { recount });
  if (result.applied.length === 0) out(`The database schema is at version ${result.to}: nothing to do.`);
  else out(`Migrated the database schema from version ${result.from} to ${result.to}: ${result.applied.join(', ')}`);
  if (result.recounted) {
    const changed = result.recounted.filter((r) => r.before !== r.after);
    if (changed.length === 0) out(`Recounted ${result.recounted.length} tables: every kept count matched the rows.`);
    else out(`Recounted ${result.recounted.length} tables; corrected: ${changed.map((r) => `${r.table} ${r.before} → ${r.after}`).join(', ')}`);
  }
  return 0;
}
