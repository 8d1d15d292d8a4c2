/**
 * A real streaming replica for the read-replica tests: `pg_basebackup -R` of a PostgreSQL server
 * into a temporary directory, started with the machine's `postgres` of the same major version on a
 * free port (as `nobody` when the tests run as root), stopped and removed afterwards. When the
 * server, the machine or the account cannot give one, a reason instead (the test skips with it).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, run } from './runner/embedded-postgres.ts';
import { dataRoot, DIR_PREFIX, unprivilegedAccount } from './runner/pg-host.ts';

/** A running replica. */
export interface StreamingReplica {
  url: string;
  /** Stops it (a fast shutdown); its directory stays until remove(). */
  stop: () => Promise<void>;
  /** Stops it if it runs, and removes its directory. */
  remove: () => Promise<void>;
  /** Runs one statement on it (pg_wal_replay_pause() and the like). */
  sql: (text: string) => Promise<Record<string, unknown>[]>;
}

/** What a primary must allow, or why it does not: wal_level, a free WAL sender, and a replication connection. */
export async function replicationRefusal(primaryUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ wal: string; senders: number; used: number }>(
      "SELECT current_setting('wal_level') AS wal, current_setting('max_wal_senders')::int AS senders, (SELECT count(*)::int FROM pg_stat_replication) AS used",
    );
    const row = rows[0]!;
    if (row.wal === 'minimal') return 'its wal_level is minimal';
    if (row.senders <= row.used) return `it has no free WAL sender (max_wal_senders ${row.senders})`;
  } finally {
    await client.end();
  }
  // A physical replication connection (what pg_basebackup opens): pg_hba.conf's `replication` lines, not the database's.
  const replication = new pg.Client({ connectionString: primaryUrl, replication: true } as pg.ClientConfig);
  replication.on('error', () => undefined);
  try {
    await replication.connect();
    await replication.query('IDENTIFY_SYSTEM');
    return null;
  } catch (err) {
    return `it refuses replication connections (${(err as Error).message})`;
  } finally {
    await replication.end().catch(() => undefined);
  }
}

/** The directory of this major version's programs with pg_basebackup and postgres, or why none. */
function binariesFor(major: number): string | { reason: string } {
  const configured = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const version = spawnSync('pg_config', ['--version'], { encoding: 'utf8' });
  const candidates = [`/usr/lib/postgresql/${major}/bin`];
  if (configured.status === 0 && new RegExp(`PostgreSQL ${major}\\b`).test(version.stdout ?? '')) candidates.unshift(configured.stdout.trim());
  const found = candidates.find((dir) => existsSync(join(dir, 'pg_basebackup')) && existsSync(join(dir, 'postgres')));
  return found ?? { reason: `no pg_basebackup and postgres ${major} on this machine (looked in ${candidates.join(', ')})` };
}

// The settings a hot standby may not have lower than its primary (PostgreSQL refuses to start otherwise).
const AT_LEAST_PRIMARY = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

/** Starts a streaming replica of the server `primaryUrl` names, or says why it cannot. */
export async function startReplica(primaryUrl: string): Promise<StreamingReplica | { reason: string }> {
  const refusal = await replicationRefusal(primaryUrl);
  if (refusal) return { reason: `the server at ${new URL(primaryUrl).host} cannot be replicated: ${refusal}` };
  const settings = await withClient(primaryUrl, async (c) => {
    const { rows } = await c.query<{ name: string; setting: string }>('SELECT name, setting FROM pg_settings WHERE name = ANY($1) OR name = $2', [AT_LEAST_PRIMARY, 'server_version_num']);
    return new Map(rows.map((r) => [r.name, r.setting]));
  });
  const bin = binariesFor(Math.floor(Number(settings.get('server_version_num')) / 10000));
  if (typeof bin !== 'string') return bin;
  const account = unprivilegedAccount();
  if (typeof account === 'string') return { reason: account };
  const dir = mkdtempSync(join(dataRoot().dir, `${DIR_PREFIX}replica-`));
  // The embedded runner's leftover sweep removes this directory too should the test be killed.
  writeFileSync(join(dir, 'runner.pid'), String(process.pid));
  const as: SpawnOptions = { cwd: dir, env: { ...process.env, LC_MESSAGES: 'C', PGAPPNAME: 'replica-test' }, ...(account ?? {}) };
  if (account) chownSync(dir, account.uid, account.gid);
  const data = join(dir, 'data');
  const remove = () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  const backup = await run(join(bin, 'pg_basebackup'), ['-d', primaryUrl, '-D', data, '-X', 'stream', '-R', '-c', 'fast', '--no-sync'], as);
  if (backup.code !== 0) {
    remove();
    return { reason: `pg_basebackup failed: ${backup.output.trim().split('\n').slice(-2).join(' / ')}` };
  }
  // A packaged cluster keeps its configuration outside its data directory (Debian: /etc/postgresql).
  for (const [file, text] of [['postgresql.conf', ''], ['pg_hba.conf', 'local all all trust\nhost all all 127.0.0.1/32 trust\n'], ['pg_ident.conf', '']] as const) {
    const path = join(data, file);
    if (!existsSync(path)) {
      writeFileSync(path, text);
      if (account) chownSync(path, account.uid, account.gid);
    }
  }
  const port = await freePort();
  const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'hot_standby=on', '-c', 'logging_collector=off'];
  for (const name of AT_LEAST_PRIMARY) args.push('-c', `${name}=${settings.get(name)}`);
  const child = spawn(join(bin, 'postgres'), args, { ...as, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString('utf8')).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = stopper(child, exited);
  const onExit = () => {
    child.kill('SIGKILL');
    remove();
  };
  process.once('exit', onExit);
  if (!(await answers(url, exited))) {
    await stop();
    process.off('exit', onExit);
    remove();
    return { reason: `the replica did not start: ${output.trim().split('\n').slice(-3).join(' / ')}` };
  }
  return {
    url,
    stop,
    remove: async () => {
      await stop();
      process.off('exit', onExit);
      remove();
    },
    sql: (text) => withClient(url, async (c) => (await c.query(text)).rows),
  };
}

async function withClient<R>(url: string, fn: (client: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fast shutdown (SIGINT), SIGKILL after 10 s; once. */
function stopper(child: ChildProcess, exited: Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  return () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    })());
}

/** Polls until the replica answers as a standby in recovery (true), exits, or 30 s pass (false). */
async function answers(url: string, exited: Promise<void>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const until = Date.now() + 30_000;
  while (!gone && Date.now() < until) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      return rows[0]!.standby;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return false;
}
