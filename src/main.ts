import { ConfigError, SETTINGS, flagName, loadConfig, processEnv } from './config.ts';
import { createLogger } from './log.ts';
import { startServer } from './server.ts';
import { runUserCommand, USER_COMMANDS } from './cli/users.ts';
import { DataFileError } from './store/atomic-file.ts';
import { LockedError } from './store/lock.ts';

const HELP = `Usage: npm run cli -- <command> [options]   (npm start runs "serve")

Commands:
${[['serve', 'Run the server (default)'], ...USER_COMMANDS.map((c) => [c.name, c.summary])].map(([n, d]) => `  ${n!.padEnd(18)} ${d}`).join('\n')}

Settings (environment variable, or the flag):
${SETTINGS.map((s) => `  ${flagName(s.env).padEnd(24)} ${s.env.padEnd(22)} ${s.help} [${s.fallback ?? 'unset'}]`).join('\n')}

Run "<command> --help" for a command's own options.`;

async function serve(argv: string[]): Promise<void> {
  const config = loadConfig(processEnv(), argv);
  const log = createLogger(config.logLevel);
  const running = await startServer(config, { log });
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
  if (command === 'serve') {
    if (args.includes('--help')) {
      console.log(HELP);
      return 0;
    }
    await serve(args);
    return -1;
  }
  const user = USER_COMMANDS.find((c) => c.name === command);
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
    const known = err instanceof ConfigError || err instanceof DataFileError || err instanceof LockedError;
    console.error(known ? (err as Error).message : err);
    process.exit(1);
  },
);
