/**
 * The command line as a person meets it: an unknown command, the users list, and where exports
 * may go (never into the repository but its git-ignored exports/, never onto a terminal for --all,
 * never into `npm pack`). Real processes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CHILD_ENV, ENTRY, runCli } from './process-helpers.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tmp = () => mkdtemp(join(tmpdir(), 'cli-output-test-'));
const exists = (path: string) => stat(path).then(() => true, () => false);
const COMMANDS = ['serve', 'demo', 'migrate', 'users:add', 'users:list', 'users:rotate-key', 'export', 'import', 'import-links'];

test('an unknown command is one line (with the nearest command when there is one) and the list of commands, exit 2', async () => {
  const [near, far] = await Promise.all([runCli(['users:lst']), runCli(['frobnicate'])]);
  for (const [r, first] of [[near, 'Unknown command "users:lst": did you mean users:list?'], [far, 'Unknown command "frobnicate".']] as const) {
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 2), [first, 'Commands:']);
    assert.deepEqual(lines.slice(2).map((line) => line.trim().split(/\s+/)[0]), COMMANDS, 'the commands, one a line, and nothing else');
  }
});

test('users:list starts with a header row naming its columns', async () => {
  const dir = await tmp();
  const add = await runCli(['users:add', '--email', 'ada@example.com', '--username', 'ada', '--admin', '--data-dir', dir]);
  assert.equal(add.code, 0, add.stderr);
  const list = await runCli(['users:list', '--data-dir', dir]);
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.trimEnd().split('\n');
  assert.deepEqual(lines.map((line) => line.trim().split(/\s+/)), [
    ['ID', 'EMAIL', 'USERNAME', 'STATUS', 'ROLE'],
    ['1', 'ada@example.com', 'ada', 'free', 'admin'],
  ]);
  assert.equal(lines[0]!.indexOf('EMAIL'), lines[1]!.indexOf('ada@'), 'the header is above its column');
});

test('an export never goes into the repository but its exports/ folder, and export --all never onto a terminal; nothing is written when refused', async () => {
  const dir = join(await tmp(), 'never-opened');
  const name = `cli-output-test-${process.pid}.json`;
  const inExports = join('exports', 'nested', name);
  try {
    const [root, src, user, kept] = await Promise.all([
      runCli(['export', '--all', '--output', name, '--data-dir', dir]),
      runCli(['export', '--all', '--output', join(ROOT, 'src', name), '--data-dir', dir]),
      runCli(['export', '--email', 'ada@example.com', '--output', name, '--data-dir', dir]),
      runCli(['export', '--all', '--output', inExports, '--data-dir', ':memory:']),
    ]);
    for (const [r, path] of [[root, name], [src, join(ROOT, 'src', name)], [user, name]] as const) {
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`^${path.replace(/[.]/g, '\\.')} is inside the server's directory \\(${ROOT.replace(/\/$/, '')}\\): write exports elsewhere \\(e\\.g\\. ~/backups/\\), or under ${ROOT}exports/, which git and npm pack leave out\\.\\nUsage: export `));
    }
    assert.deepEqual([await exists(join(ROOT, name)), await exists(join(ROOT, 'src', name)), await exists(dir)], [false, false, false], 'no file written, the data directory not even opened');
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(JSON.parse(await readFile(join(ROOT, inExports), 'utf8')).$export.all, true);
    assert.equal((await stat(join(ROOT, inExports))).mode & 0o777, 0o600);
    assert.equal((await stat(join(ROOT, 'exports', 'nested'))).mode & 0o777, 0o700);
  } finally {
    await rm(join(ROOT, inExports), { force: true });
    await rmdir(join(ROOT, 'exports', 'nested')).catch(() => {});
    await rmdir(join(ROOT, 'exports')).catch(() => {});
  }
});

test('export --all refuses a terminal (every key hash would be on the screen); redirected, it writes to stdout', { skip: spawnSync('script', ['--version']).status === 0 ? false : 'util-linux script (a pseudo-terminal) is not installed' }, async () => {
  const dir = await tmp();
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, ...ENTRY, 'export', '--all', '--data-dir', dir].map(quote).join(' ');
  // script runs the command on a pseudo-terminal; -e hands back its exit code.
  const onTerminal = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: CHILD_ENV, encoding: 'utf8' });
  assert.equal(onTerminal.status, 2, onTerminal.stdout);
  assert.match(onTerminal.stdout, /^Say where the export goes: --output <file> \(outside the server's directory, e\.g\. ~\/backups\/shortlink\.json\), or redirect stdout; it is not printed on a terminal\.\r?\nUsage: export/);
  assert.doesNotMatch(onTerminal.stdout, /\$export|keyHash/);
  const piped = await runCli(['export', '--all', '--data-dir', dir]);
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(JSON.parse(piped.stdout).$export.all, true);
});

test('exports are git-ignored, and npm pack ships only what the server runs and its docs', async () => {
  const ignored = (path: string) => spawnSync('git', ['check-ignore', '-q', path], { cwd: ROOT }).status;
  assert.equal(ignored('exports/all.json'), 0, 'exports/ is ignored');
  assert.equal(ignored('data/users.json'), 0, 'the default data directory is ignored');
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
  const files: string[] = JSON.parse(stdout)[0].files.map((f: { path: string }) => f.path);
  assert.ok(files.includes('bin/shortlink-server.js') && files.includes('src/main.ts') && files.includes('package.json'));
  const stray = files.filter((f) => !/^(bin|src|docs)\//.test(f) && !['README.md', 'package.json', 'tsconfig.json'].includes(f) && !/^LICEN[CS]E/i.test(f));
  assert.deepEqual(stray, [], 'no tests, benchmarks, data or exports in the package');
});
