import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import * as v from 'valibot';
import { systemClock } from '../clock.ts';
import { loadConfig, processEnv, unknownOption } from '../config.ts';
import type { Config } from '../config.ts';
import { rotateKeyOf } from '../auth/rotate.ts';
import type { UserRecord } from '../resources/define.ts';
import { checkUserUnique, newUserFields, userFields } from '../resources/users.ts';
import { RESOURCES, storeSchema } from '../resources/table.ts';
import { openStore } from '../store/open.ts';
import { withEvents } from '../events/emitting-store.ts';
import type { Store } from '../store/store.ts';
import { ApiError } from '../errors.ts';
import { FixtureError } from '../fixtures/read.ts';
import type { ProgressSink } from './progress.ts';

/** What a command may use besides its flags: its positional arguments, raw stdout, and stderr for progress. */
export interface CommandIo {
  positionals: string[];
  /** Writes to stdout; a promise: the command waits for it before its next piece. */
  write(text: string): Promise<void> | void;
  stderr: ProgressSink;
  /** Whether stdout is a terminal (a person's screen) rather than a file or a pipe. */
  stdoutIsTerminal?: boolean;
  /** The settings the command runs with (set once they are read, before `run`). */
  config?: Config;
}

/** A CLI command that works on the data directory (the server must not be running on it). */
export interface UserCommand {
  name: string;
  summary: string;
  options: NonNullable<ParseArgsConfig['options']>;
  usage: string;
  /** More help after the usage line. */
  details?: string;
  /** Whether the command takes positional arguments (`import <file>`). */
  positionals?: boolean;
  /** Checks the command line before the store is opened, so a refused one touches no data (throws UsageError). */
  check?(values: Record<string, string | boolean | undefined>, io: CommandIo): Promise<void>;
  run(store: Store, values: Record<string, string | boolean | undefined>, out: (line: string) => void, io: CommandIo): Promise<void>;
}

/** A command line that cannot work (a flag missing): exit code 2 with the usage. */
export class UsageError extends Error {}

/** A command that failed for a reason its message says in full (an output it cannot write): exit code 1, no stack. */
export class CommandError extends Error {}

/** Flags every data-directory command takes. */
export const common = { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' }, 'database-schema': { type: 'string' }, help: { type: 'boolean' } } as const;

/** The user-management commands. */
export const USER_COMMANDS: readonly UserCommand[] = [
  {
    name: 'users:add',
    summary: 'Create a user and print its API key (once)',
    usage: 'users:add --email <email> [--username <name>] [--password <pw>] [--admin] [--data-dir <dir>]',
    options: { ...common, email: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' }, admin: { type: 'boolean' } },
    async run(store, values, out) {
      const email = v.parse(userFields.email, values.email ?? '');
      const username = v.parse(userFields.username, values.username ?? email.split('@')[0]!.replace(/[^A-Za-z0-9_.-]/g, '').padEnd(3, '0'));
      const password = (values.password as string | undefined) ?? randomBytes(18).toString('base64url');
      v.parse(userFields.password, password);
      const made = await newUserFields({ email, username, password, admin: values.admin === true }, systemClock.now());
      const user = await store.transaction(async (tx) => {
        await checkUserUnique(tx, { email, username });
        return tx.insert('users', made.fields);
      });
      out(`Created user ${user.id} <${email}>${values.admin ? ' (admin)' : ''}`);
      out(`API key: ${made.apikey}`);
    },
  },
  {
    name: 'users:list',
    summary: 'List users (never their keys)',
    usage: 'users:list [--data-dir <dir>]',
    options: { ...common },
    async run(store, _values, out) {
      const row = (id: string, email: string, username: string, status: string, role: string) => `${id.padStart(5)}  ${email.padEnd(32)} ${username.padEnd(20)} ${status.padEnd(6)} ${role}`;
      out(row('ID', 'EMAIL', 'USERNAME', 'STATUS', 'ROLE'));
      for await (const batch of store.scan<UserRecord>('users')) {
        for (const u of batch) out(row(String(u.id), u.email, u.username, u.status, u.admin ? 'admin' : 'user'));
      }
    },
  },
  {
    name: 'users:rotate-key',
    summary: "Replace a user's API key and print the new one (once)",
    usage: 'users:rotate-key --email <email> [--data-dir <dir>]',
    options: { ...common, email: { type: 'string' } },
    async run(store, values, out) {
      const email = String(values.email ?? '').toLowerCase();
      const user = await store.lookup<UserRecord>('users', 'email', email);
      if (!user) throw new ApiError(404, `No user has the email "${email}".`);
      out(`API key: ${await rotateKeyOf(store, user.id, null)}`);
    },
  },
];

/** Parses a command's flags, opens the data directory, runs it; returns the exit code. */
export async function runUserCommand(cmd: UserCommand, argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({ args: argv, options: cmd.options, strict: true, allowPositionals: cmd.positionals === true });
    values = parsed.values as typeof values;
    positionals = parsed.positionals;
  } catch (err) {
    // parseArgs' own text for a typo is two sentences about positionals; ours names the nearest flag.
    const unknown = (err as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^'=]*)/.exec((err as Error).message)?.[1] : undefined;
    const message = unknown ? unknownOption(unknown, Object.keys(cmd.options).map((name) => `--${name}`)).message : (err as Error).message;
    console.error(`${message}\nUsage: ${cmd.usage}`);
    return 2;
  }
  if (values.help) {
    console.log(`${cmd.summary}\nUsage: npm run cli -- ${cmd.usage}${cmd.details ? `\n\n${cmd.details}` : ''}`);
    return 0;
  }
  // `export ... | head`: a reader that stops early is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const io: CommandIo = { positionals, write: (text) => void process.stdout.write(text), stderr: process.stderr, stdoutIsTerminal: process.stdout.isTTY === true };
  const usage = (err: UsageError) => {
    console.error(`${err.message}\nUsage: ${cmd.usage}`);
    return 2;
  };
  try {
    await cmd.check?.(values, io);
  } catch (err) {
    if (err instanceof UsageError) return usage(err);
    throw err;
  }
  const flags = (['data-dir', 'database-url', 'database-schema'] as const).flatMap((name) => (typeof values[name] === 'string' ? [`--${name}`, values[name]] : []));
  const config = loadConfig(processEnv(), flags);
  io.config = config;
  // Records a command writes fire their events as the server's own writes do (an import's link.created…).
  const store = withEvents(
    await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, databasePool: 2, databaseSchema: config.databaseSchema, collections: storeSchema(RESOURCES) }),
    RESOURCES,
    { config, clock: systemClock },
  );
  try {
    await cmd.run(store, values, (line) => console.log(line), io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return usage(err);
    if (err instanceof FixtureError || err instanceof CommandError) {
      console.error(err.message);
      return 1;
    }
    if (err instanceof v.ValiError || err instanceof ApiError) {
      console.error(err instanceof v.ValiError ? `Invalid ${err.issues[0]?.path?.[0]?.key ?? 'input'}: ${err.message}` : err.message);
      return 1;
    }
    throw err;
  } finally {
    await store.close();
  }
}
