import cluster from 'node:cluster';
import { runPrimary, workerCount } from './workers/primary.ts';
import { closestName } from './closest-name.ts';
import { ConfigError, SETTINGS, flagName, loadConfig, misspelledSettings, processEnv } from './config.ts';
import { createLogger } from './log.ts';
import { runUserCommand, USER_COMMANDS } from './cli/users.ts';
import { DATA_COMMANDS } from './cli/data.ts';
import { IMPORT_LINKS_COMMAND } from './cli/import-links.ts';
import { runMigrate } from './cli/migrate.ts';
import { FixtureError } from './fixtures/read.ts';
import { DataFileError } from './store/file/atomic-file.ts';
import { DataDirError } from './store/file/permissions.ts';
import { LockedError } from './store/file/lock.ts';
import { StoreUnavailableError } from './store/store.ts';

const COMMANDS = [...USER_COMMANDS, ...DATA_COMMANDS, IMPORT_LINKS_COMMAND];

const COMMAND_SUMMARIES: readonly (readonly [string, string])[] = [
  ['serve', 'Run the server (default); --seed <file> loads fixtures into an empty data directory'],
  ['demo', 'Run an in-memory server full of demo data (npm run demo)'],
  ['migrate', 'Bring the PostgreSQL schema up to this version (the server also does at start)'],
  ...COMMANDS.map((c) => [c.name, c.summary] as const),
];

const COMMAND_LIST = `Commands:\n${COMMAND_SUMMARIES.map(([n, d]) => `  ${n.padEnd(18)} ${d}`).join('\n')}`;

const HELP = `Usage: npm run cli -- <command> [options]   (npm start runs "serve")

${COMMAND_LIST}

Settings (environment variable, or the flag):
${SETTINGS.map((s) => `  ${flagName(s.env).padEnd(24)} ${s.env.padEnd(22)} ${s.help} [${s.fallback ?? 'unset'}]`).join('\n')}

Run "<command> --help" for a command's own options. Exit codes: 0 done, 1 failed, 2 bad command line.`;

// The server and the demo are loaded only to serve: without them the other commands start on ~20% less CPU.
async function serve(argv: string[], demo = false): Promise<void> {
  const [{ startServer }, { demoEnv, startDemo }] = await Promise.all([import('./server.ts'), import('./demo/start.ts')]);
  const env = processEnv();
  const config = loadConfig(demo ? demoEnv(env) : env, argv);
  const workers = demo ? 1 : workerCount(config);
  // A near-miss of one of our settings is a typo that would be ignored: the start stops on one line, as for a flag.
  const misspelled = misspelledSettings(env).map(({ name, setting }) => `Unknown setting ${name} in the environment: did you mean ${setting}?`);
  if (misspelled.length > 0) throw new ConfigError(`${misspelled.join(' ')} Rename or unset it to start.`);
  const primaryLog = cluster.isPrimary ? createLogger(config.logLevel, undefined, workers > 1 ? 'primary' : undefined) : null;
  if (workers > 1 && primaryLog) return runPrimary(workers, config, primaryLog);
  // A worker's lines say which one (cluster ids grow as workers are restarted).
  const log = primaryLog ?? createLogger(config.logLevel, undefined, cluster.worker ? `worker ${cluster.worker.id} pid ${process.pid}` : undefined);
  const running = demo ? await startDemo(config, { log }) : await startServer(config, { log, worker: cluster.isWorker });
  const stop = (signal: string) => {
    log.info(`${signal}: shutting down`);
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('shutdown failed', { error: String(err) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  const command = first && !first.startsWith('-') ? first : 'serve';
  const args = command === first ? rest : argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    console.log(HELP);
    return 0;
  }
  if (command === 'migrate') return runMigrate(args, (line) => console.log(line), (line) => console.error(line));
  if (command === 'serve' || command === 'demo') {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(HELP);
      return 0;
    }
    await serve(args, command === 'demo');
    return -1;
  }
  const user = COMMANDS.find((c) => c.name === command);
  if (!user) {
    const near = closestName(command, COMMAND_SUMMARIES.map(([n]) => n), 3);
    console.error(`Unknown command "${command}"${near ? `: did you mean ${near}?` : '.'}\n${COMMAND_LIST}`);
    return 2;
  }
  return runUserCommand(user, args);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    const known = err instanceof ConfigError || err instanceof DataFileError || err instanceof DataDirError || err instanceof LockedError || err instanceof FixtureError || err instanceof StoreUnavailableError || ['SchemaTooNewError', 'ListenError', 'GeoDatabaseError'].includes((err as Error | null)?.name ?? '');
    console.error(known ? (err as Error).message : err);
    process.exit(1);
  },
);
