import cluster from 'node:cluster';
import { runPrimary, workerCount } from './workers/primary.ts';
import { ConfigError, SETTINGS, flagName, loadConfig, processEnv } from './config.ts';
import { createLogger } from './log.ts';
import { runUserCommand, USER_COMMANDS } from './cli/users.ts';
import { DATA_COMMANDS } from './cli/data.ts';
import { runMigrate } from './cli/migrate.ts';
import { FixtureError } from './fixtures/read.ts';
import { DataFileError } from './store/file/atomic-file.ts';
import { LockedError } from './store/file/lock.ts';
import { StoreUnavailableError } from './store/store.ts';

const COMMANDS = [...USER_COMMANDS, ...DATA_COMMANDS];

const HELP = `Usage: npm run cli -- <command> [options]   (npm start runs "serve")

Commands:
${[['serve', 'Run the server (default); --seed <file> loads fixtures into an empty data directory'], ['demo', 'Run an in-memory server full of demo data (npm run demo)'], ['migrate', 'Bring the PostgreSQL schema up to this version (the server also does at start)'], ...COMMANDS.map((c) => [c.name, c.summary])].map(([n, d]) => `  ${n!.padEnd(18)} ${d}`).join('\n')}

Settings (environment variable, or the flag):
${SETTINGS.map((s) => `  ${flagName(s.env).padEnd(24)} ${s.env.padEnd(22)} ${s.help} [${s.fallback ?? 'unset'}]`).join('\n')}

Run "<command> --help" for a command's own options. Exit codes: 0 done, 1 failed, 2 bad command line.`;

// The server and the demo are loaded only to serve: without them the other commands start on ~20% less CPU.
async function serve(argv: string[], demo = false): Promise<void> {
  const [{ startServer }, { demoEnv, startDemo }] = await Promise.all([import('./server.ts'), import('./demo/start.ts')]);
  const config = loadConfig(demo ? demoEnv(processEnv()) : processEnv(), argv);
  const workers = demo ? 1 : workerCount(config);
  if (workers > 1 && cluster.isPrimary) return runPrimary(workers, config, createLogger(config.logLevel, undefined, 'primary'));
  // A worker's lines say which one (cluster ids grow as workers are restarted).
  const log = createLogger(config.logLevel, undefined, cluster.worker ? `worker ${cluster.worker.id} pid ${process.pid}` : undefined);
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
    if (args.includes('--help')) {
      console.log(HELP);
      return 0;
    }
    await serve(args, command === 'demo');
    return -1;
  }
  const user = COMMANDS.find((c) => c.name === command);
  if (!user) {
    console.error(`Unknown command "${command}".\n\n${HELP}`);
    return 2;
  }
  return runUserCommand(user, args);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    const known = err instanceof ConfigError || err instanceof DataFileError || err instanceof LockedError || err instanceof FixtureError || err instanceof StoreUnavailableError || ['SchemaTooNewError', 'ListenError'].includes((err as Error | null)?.name ?? '');
    console.error(known ? (err as Error).message : err);
    process.exit(1);
  },
);
