import { allOf } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockedError, acquireLock } from '../src/store/file/lock.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { CHILD_ENV, ENTRY, PROCESS_ADMIN_KEY, api, runCli, startProcess } from './process-helpers.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tmp = () => mkdtemp(join(tmpdir(), 'lock-test-'));
const SERVER = [process.execPath, ...ENTRY, 'serve'].map((a) => `'${a}'`).join(' ');

/** A server started by `sh -c <script>` in its own process group; `url` once it listens, or its exit code and output. */
interface Group {
  child: ChildProcess;
  started: Promise<{ url: string } | { code: number | null; output: string }>;
  output: () => string;
}

function startGroup(dir: string, script = `exec ${SERVER}`): Group {
  const child = spawn('sh', ['-c', script], {
    cwd: ROOT,
    detached: true, // its own process group, as `npm start` under a supervisor would be
    env: { ...CHILD_ENV, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, ADMIN_API_KEY: PROCESS_ADMIN_KEY, LOG_LEVEL: 'info', RATE_LIMIT: '0' },
  });
  let out = '';
  const started = new Promise<{ url: string } | { code: number | null; output: string }>((resolve) => {
    const onData = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) resolve({ url: m[1]! });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => resolve({ code, output: out }));
  });
  return { child, started, output: () => out };
}

function killGroup(g: Group): void {
  try {
    process.kill(-g.child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function listening(g: Group, label: string): Promise<string> {
  const r = await g.started;
  assert.ok('url' in r, `${label}: the server did not start: ${JSON.stringify(r)}`);
  return r.url;
}

test('kill -9 of the server’s process group, then an immediate restart, three times: every restart serves the data', async () => {
  const dir = await tmp();
  let g = startGroup(dir);
  try {
    // Three rounds (each a server start, most of this test's time): the stale lock met in two states of the data.
    for (let round = 1; round <= 3; round++) {
      const url = await listening(g, `round ${round}`);
      const made = await api(url, 'POST', '/api/pixel/add', { type: 'gapixel', name: `p${round}`, tag: `T-${round}` });
      assert.equal(made.status, 200);
      killGroup(g); // no wait for the exit, and nobody reaps before the restart begins
      g = startGroup(dir);
    }
    const url = await listening(g, 'last');
    const list = await api(url, 'GET', '/api/pixels?limit=100');
    assert.deepEqual(list.body.data.pixels.map((p: { name: string }) => p.name).sort(), ['p1', 'p2', 'p3']);
  } finally {
    killGroup(g);
    await rm(dir, { recursive: true, force: true });
  }
});

test('a server killed -9 whose parent never reaps it (a zombie that keeps its pid) does not block the restart', async () => {
  const dir = await tmp();
  // The shell starts the server in the background and becomes `sleep`, which never waits for it.
  const parent = startGroup(dir, `${SERVER} & echo "server pid $!"; exec sleep 600`);
  let next: Group | null = null;
  try {
    const url = await listening(parent, 'first');
    assert.equal((await api(url, 'POST', '/api/pixel/add', { type: 'bing', name: 'kept', tag: 'K' })).status, 200);
    const pid = Number(/server pid (\d+)/.exec(parent.output())![1]);
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && !/^Z/.test(stateOf(pid)); i++) await sleep(20);
    assert.match(stateOf(pid), /^Z/, 'the killed server is a zombie: its pid still exists');
    next = startGroup(dir);
    const again = await listening(next, 'restart');
    assert.deepEqual((await api(again, 'GET', '/api/pixels')).body.data.pixels.map((p: { name: string }) => p.name), ['kept']);
  } finally {
    killGroup(parent);
    if (next) killGroup(next);
    await rm(dir, { recursive: true, force: true });
  }
});

/** The state letter of a process and what follows it in /proc (Z: a zombie). */
function stateOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2);
  } catch {
    return 'gone';
  }
}

test('a lock file naming the pid of a live unrelated process (pid reuse) does not block the start', async () => {
  const dir = await tmp();
  const unrelated = spawn('sleep', ['600']);
  try {
    await writeFile(join(dir, '.lock'), String(unrelated.pid)); // what an older version left at a crash
    const s = await startProcess(dir);
    try {
      assert.equal((await api(s.url, 'GET', '/api/pixels')).status, 200);
    } finally {
      s.child.kill('SIGTERM');
      assert.equal(await s.exit, 0);
    }
  } finally {
    unrelated.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test('a second live server is refused, naming the holder; the holder keeps its lock and serves; the CLI is refused too', async () => {
  const dir = await tmp();
  const first = await startProcess(dir);
  try {
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      await assert.rejects(startProcess(dir), (err: Error) => err.message.includes('exited with 1') && err.message.includes(`in use by another server (pid ${first.child.pid}`));
      assert.ok(Date.now() - started < 10_000);
    }
    const cli = await runCli(['users:list'], { DATA_DIR: dir });
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, new RegExp(`in use by another server \\(pid ${first.child.pid}`));
    assert.equal((await api(first.url, 'POST', '/api/pixel/add', { type: 'bing', name: 'still', tag: 'S' })).status, 200);
  } finally {
    first.child.kill('SIGTERM');
    assert.equal(await first.exit, 0);
  }
  assert.ok(!(await readdir(dir)).includes('.lock'), 'a clean stop removes the lock socket');
  const cli = await runCli(['users:list'], { DATA_DIR: dir });
  assert.equal(cli.code, 0, cli.stderr);
  await rm(dir, { recursive: true, force: true });
});

test('servers started at the same moment on a stale lock: exactly one serves, the others are refused', async () => {
  const dir = await tmp();
  const holder = startGroup(dir);
  await listening(holder, 'holder');
  killGroup(holder); // leaves a stale lock behind
  await sleep(200);
  const racers = Array.from({ length: 4 }, () => startGroup(dir));
  try {
    const results = await Promise.all(racers.map((r) => r.started));
    const serving = results.filter((r) => 'url' in r);
    assert.equal(serving.length, 1, JSON.stringify(results));
    for (const r of results) if (!('url' in r)) assert.match(r.output, /in use by another server/);
  } finally {
    racers.forEach(killGroup);
    await rm(dir, { recursive: true, force: true });
  }
});

// Another container on the same volume has its own network namespace: it cannot see the abstract
// socket, only the socket file in the data directory. `unshare -n` makes one (root only).
const otherNamespace = spawnSync('unshare', ['-n', 'true']).status === 0;

/** `npm run cli -- <args>` in a fresh network namespace. */
function cliElsewhere(args: string[], dir: string): Promise<{ code: number | null; output: string }> {
  const child = spawn('unshare', ['-n', process.execPath, ...ENTRY, ...args], { cwd: ROOT, env: { ...CHILD_ENV, DATA_DIR: dir, LOG_LEVEL: 'warn' } });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

test('a process in another network namespace (a container sharing the volume) is refused by the socket file, and takes over once the holder died', { skip: !otherNamespace && 'needs `unshare -n` (root)' }, async () => {
  const dir = await tmp();
  const first = await startProcess(dir);
  try {
    const refused = await cliElsewhere(['users:list'], dir);
    assert.equal(refused.code, 1, refused.output);
    assert.match(refused.output, new RegExp(`in use by another server \\(pid ${first.child.pid}`));
    assert.equal((await api(first.url, 'GET', '/api/pixels')).status, 200, 'the holder is unharmed');
  } finally {
    first.child.kill('SIGKILL');
    await first.exit;
  }
  assert.ok((await readdir(dir)).includes('.lock'), 'the killed server left its socket file');
  const after = await cliElsewhere(['users:list'], dir);
  assert.equal(after.code, 0, after.output);
  assert.match(after.output, /admin/);
  await rm(dir, { recursive: true, force: true });
});

test('takeovers of a dead holder’s lock racing each other: exactly one wins', async () => {
  const dir = await tmp();
  await writeFile(join(dir, '.lock'), '12345'); // nobody listens on it: its holder is dead
  const results = await Promise.allSettled(Array.from({ length: 6 }, () => acquireLock(dir)));
  const won = results.filter((r) => r.status === 'fulfilled');
  assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
  for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof LockedError, String(r.reason));
  won[0]!.value();
  const again = await acquireLock(dir);
  again();
  await rm(dir, { recursive: true, force: true });
});

test('a holder that accepts but does not answer (being killed, or busy) is waited for, then refused; once it is gone, taken over', async () => {
  const dir = await tmp();
  const silent = createServer(() => {}); // accepts, never answers
  await new Promise<void>((resolve) => silent.listen(join(dir, '.lock'), resolve));
  const started = Date.now();
  await assert.rejects(acquireLock(dir), (err: unknown) => err instanceof LockedError && /did not answer within 3 s/.test(err.message));
  assert.ok(Date.now() - started >= 2900, `refused after ${Date.now() - started} ms`);
  setTimeout(() => silent.close(), 500); // the dying holder's socket closes meanwhile
  const release = await acquireLock(dir);
  release();
  await rm(dir, { recursive: true, force: true });
});

test('temp files of a lock taken by a process killed meanwhile are removed once a minute old; newer ones are left', async () => {
  const dir = await tmp();
  const old = ['.lock.4242.deadbeef.tmp', '.lock-key.4242.0badf00d.tmp'];
  const fresh = '.lock.4343.cafebabe.tmp';
  for (const name of [...old, fresh]) await writeFile(join(dir, name), '');
  const longAgo = new Date(Date.now() - 120_000);
  for (const name of old) await utimes(join(dir, name), longAgo, longAgo);
  const release = await acquireLock(dir);
  const left = await readdir(dir);
  release();
  assert.deepEqual(left.filter((n) => n.endsWith('.tmp')), [fresh]);
  await rm(dir, { recursive: true, force: true });
});

test('in one process: a second open of a held directory is refused, and the lock is released on close', async () => {
  const dir = await tmp();
  const a = await FileStore.open({ dir, collections: ['things'] });
  await assert.rejects(FileStore.open({ dir, collections: ['things'] }), (err: unknown) => err instanceof LockedError && err.message.includes(`pid ${process.pid}`));
  await a.transaction((tx) => tx.insert('things', { kept: true }));
  await a.close();
  const b = await FileStore.open({ dir, collections: ['things'] });
  assert.deepEqual((await allOf(b, 'things')), [{ id: 1, kept: true }]);
  await b.close();
  await rm(dir, { recursive: true, force: true });
});

test('a data directory whose path is too long for a socket address still locks, with the socket in the directory', async () => {
  const root = await tmp();
  const dir = join(root, 'a-rather-long-directory-name-for-data'.repeat(4), 'data');
  await mkdir(dir, { recursive: true });
  assert.ok(Buffer.byteLength(join(dir, '.lock')) > 108);
  const leftovers = async () => (await readdir(tmpdir())).filter((n) => n.startsWith('shortlink-lock-'));
  const before = await leftovers();
  const a = await FileStore.open({ dir, collections: ['things'] });
  try {
    assert.ok((await readdir(dir)).includes('.lock'));
    await assert.rejects(FileStore.open({ dir, collections: ['things'] }), LockedError);
    const cli = await runCli(['users:list'], { DATA_DIR: dir });
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /in use by another server/);
  } finally {
    await a.close();
  }
  assert.ok(!(await readdir(dir)).includes('.lock'));
  assert.deepEqual(await leftovers(), before, 'nothing is left in the temp folder');
  await rm(root, { recursive: true, force: true });
});

test('a store left open does not keep its process alive', async () => {
  const dir = await tmp();
  const script = `import('./src/store/file/file-store.ts').then(async ({ FileStore }) => { await FileStore.open({ dir: ${JSON.stringify(dir)}, collections: ['things'] }); console.log('opened'); })`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.match(out, /opened/);
  await rm(dir, { recursive: true, force: true });
});
