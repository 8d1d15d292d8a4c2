/**
 * What a person starting the server sees: a mistyped flag or setting, a data directory it cannot
 * write, the start line, the admin key line, and a fresh clone's first start (real processes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHILD_ENV, ENTRY, startProcess } from './process-helpers.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tmp = () => mkdtemp(join(tmpdir(), 'start-up-test-'));
const exists = (path: string) => stat(path).then(() => true, () => false);

/**
 * Runs the entry point to its exit, as `uid` when given (root can write anywhere, so the check runs
 * as nobody); a start that should have been refused but serves is killed after 20 s (code null).
 */
function run(args: string[], env: Record<string, string>, uid?: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...ENTRY, ...args], { cwd: ROOT, env: { ...CHILD_ENV, LOG_LEVEL: 'warn', ...env }, ...(uid === undefined ? {} : { uid, gid: uid }) });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('an unknown flag stops the start with one line naming it and the nearest flag, exit 1, nothing created; values are never echoed', async () => {
  const dir = join(await tmp(), 'data');
  const cases: [string[], number, string][] = [
    [['serve', '--prot', '0'], 1, 'Unknown option --prot: did you mean --port?\n'],
    [['serve', '--port', '0', '--admin-api-ky=sk_do_not_print_me_0000000'], 1, 'Unknown option --admin-api-ky: did you mean --admin-api-key?\n'],
    [['--data-dri', dir], 1, 'Unknown option --data-dri: did you mean --data-dir?\n'],
    [['demo', '--prot', '0'], 1, 'Unknown option --prot: did you mean --port?\n'],
    [['serve', '--frobnicate'], 1, 'Unknown option --frobnicate: run --help for the list.\n'],
    [['serve', '--port', '0', 'sk_stray_word_0000000'], 1, 'Unexpected argument #3: settings are given as --flag value; run --help for the list.\n'],
    [['migrate', '--recont'], 2, 'Unknown option --recont: did you mean --recount?\n'],
    [['users:list', '--dta-dir', dir], 2, 'Unknown option --dta-dir: did you mean --data-dir?\nUsage: users:list [--data-dir <dir>]\n'],
  ];
  const results = await Promise.all(cases.map(([args]) => run(args, { DATA_DIR: dir, PORT: '0', ADMIN_API_KEY: '' })));
  cases.forEach(([args, code, stderr], i) => {
    const r = results[i]!;
    assert.deepEqual([r.code, r.stderr, r.stdout], [code, stderr, ''], args.join(' '));
  });
  assert.equal(await exists(dir), false, 'no data directory was made');
});

test('a near-miss of one of our settings in the environment stops the start with one line naming it and the setting meant, exit 1, nothing created; values are never echoed', async () => {
  const dir = join(await tmp(), 'data');
  const [one, two] = await Promise.all([
    run(['serve', '--port', '0', '--data-dir', dir], { RATE_LIMT: 'sk_do_not_print_me_0000000' }),
    run(['demo', '--port', '0'], { DATADIR: dir, HOSTS: 'x' }),
  ]);
  assert.deepEqual([one.code, one.stderr, one.stdout], [1, 'Unknown setting RATE_LIMT in the environment: did you mean RATE_LIMIT? Rename or unset it to start.\n', '']);
  assert.deepEqual([two.code, two.stderr, two.stdout], [1, 'Unknown setting DATADIR in the environment: did you mean DATA_DIR? Unknown setting HOSTS in the environment: did you mean HOST? Rename or unset it to start.\n', '']);
  assert.equal(await exists(dir), false, 'no data directory was made');
});

test('other programs\' variables start without a warning; the start line gives the bound address and the docs', async () => {
  const dir = await tmp();
  const s = await startProcess(dir, { HOME: '/root', HOSTNAME: 'box', PGPORT: '5432', REDIS_PORT: 'tcp://10.0.0.1:6379', NODE_ENV: 'production', TZ: 'UTC' });
  try {
    assert.deepEqual(s.output().split('\n').filter((line) => / WARN /.test(line)), []);
    const [, url, port] = /listening on (http:\/\/127\.0\.0\.1:(\d+)); docs: (\S+) /.exec(s.output()) ?? [];
    assert.ok(url && Number(port) > 0, 'PORT=0: the port really bound is printed');
    assert.match(s.output(), new RegExp(`listening on ${url}; docs: ${url}/docs \\(data: ${dir};`));
    const docs = await fetch(`${url}/docs`);
    assert.equal(docs.status, 200);
    assert.match(docs.headers.get('content-type') ?? '', /^text\/html/);
  } finally {
    s.child.kill('SIGTERM');
    await s.exit;
  }
});

test('a fresh clone\'s first start (the data directory as git ships it) prints no warning, makes the directory 0700, and says the admin key is shown once', async () => {
  const clone = await tmp();
  // What a checkout writes under data/: the tracked files, in directories of a 022 umask.
  const tracked = execFileSync('git', ['ls-files', '-z', 'data'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of tracked) {
    await mkdir(dirname(join(clone, file)), { recursive: true, mode: 0o755 });
    await chmod(dirname(join(clone, file)), 0o755);
    await copyFile(join(ROOT, file), join(clone, file));
  }
  const data = join(clone, 'data');
  const s = await startProcess(data, { ADMIN_API_KEY: '' });
  try {
    assert.doesNotMatch(s.output(), / WARN /);
    assert.match(s.output(), /^Admin API key: sk_\S+ {2}\(shown once: keep it now; users:rotate-key --email admin@localhost makes a new one\)$/m);
    assert.equal((await stat(data)).mode & 0o777, 0o700);
  } finally {
    s.child.kill('SIGTERM');
    await s.exit;
  }
});


test('a DATA_DIR that cannot be written is one line naming the setting and the path, exit 1, no stack trace', async () => {
  const base = await tmp();
  await chmod(base, 0o755);
  await writeFile(join(base, 'file'), 'not a directory');
  const readOnly = join(base, 'read-only');
  await mkdir(readOnly, { mode: 0o555 });
  await chmod(readOnly, 0o555);
  const asUser = process.getuid?.() === 0 ? 65534 : undefined;
  const under = join(base, 'file', 'data');
  const cases: [number | undefined, string[], Record<string, string>, string][] = [
    [undefined, ['serve'], { DATA_DIR: under, PORT: '0' }, `DATA_DIR ${under} cannot be used: part of the path is a file, not a directory (ENOTDIR). Set DATA_DIR (--data-dir) to a directory this user can write.\n`],
    [undefined, ['users:list', '--data-dir', join(base, 'file')], {}, `DATA_DIR ${join(base, 'file')} cannot be used: it is a file, not a directory (EEXIST). Set DATA_DIR (--data-dir) to a directory this user can write.\n`],
    [asUser, ['serve'], { DATA_DIR: readOnly, PORT: '0' }, `DATA_DIR ${readOnly} cannot be used: this user may not write there (EACCES). Set DATA_DIR (--data-dir) to a directory this user can write.\n`],
  ];
  const results = await Promise.all(cases.map(([uid, args, env]) => run(args, { ADMIN_API_KEY: '', ...env }, uid)));
  cases.forEach(([, args, , stderr], i) => assert.deepEqual([results[i]!.code, results[i]!.stderr], [1, stderr], args.join(' ')));
  assert.deepEqual(await readdir(readOnly), [], 'nothing was written');
});

test('a GEOIP_DATABASE that cannot be used is one line naming the setting and the path, exit 1, nothing created', async () => {
  const base = await tmp();
  const dir = join(base, 'data');
  const missing = join(base, 'GeoLite2-City.mmdb');
  const r = await run(['serve'], { DATA_DIR: dir, PORT: '0', ADMIN_API_KEY: '', GEOIP_DATABASE: missing });
  assert.deepEqual([r.code, r.stderr, r.stdout], [1, `GEOIP_DATABASE ${missing} cannot be used: no such file. Point it at a MaxMind-format City database (.mmdb), or leave it unset for countries only.\n`, '']);
  assert.equal(await exists(dir), false, 'no data directory was made');
});
