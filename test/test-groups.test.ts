import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GROUP_LOADING_TEST, runsAlone, writeGroups } from './runner/groups.ts';

/**
 * `npm test` runs the files that leave a process as they found it a few to a process
 * (test/runner/groups.ts): split by cost, each file's tests in its order, the process's `after`
 * hooks only once every file's tests ran, and each test reported under its own file.
 */
const REPORTER = fileURLToPath(new URL('./runner/file-times-reporter.js', import.meta.url));

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shortlink-groups-'));
  mkdirSync(join(dir, 'test'));
  return dir;
}

test('groups are split by cost, longest first to the cheapest group, and keep the order given', (t) => {
  const root = folder();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const cost: Record<string, number> = { 'test/a.test.ts': 50, 'test/b.test.ts': 40, 'test/c.test.ts': 30, 'test/d.test.ts': 20, 'test/e.test.ts': 10 };
  const groups = writeGroups(root, 'groups', 'file-group', Object.keys(cost), 2, (f) => cost[f]!, 'test/helpers.ts');
  // a (50) to the first, b (40) to the second, c (30) to the second (40 < 50), d (20) to the first (50 < 70), e to the first (70 = 70: the first found).
  assert.deepEqual(groups, [
    { entry: join('groups', 'file-group-1.test.mjs'), files: ['test/a.test.ts', 'test/d.test.ts', 'test/e.test.ts'] },
    { entry: join('groups', 'file-group-2.test.mjs'), files: ['test/b.test.ts', 'test/c.test.ts'] },
  ]);
  const module = readFileSync(join(root, groups[1]!.entry), 'utf8');
  assert.ok(module.indexOf(`${root}/test/helpers.ts`) < module.indexOf(`${root}/test/b.test.ts`), 'the preload comes first');
  assert.ok(module.indexOf('b.test.ts') < module.indexOf('c.test.ts'));
  assert.deepEqual(writeGroups(root, 'groups', 'one', ['test/a.test.ts'], 4, () => 1, 'test/helpers.ts').length, 1, 'never more groups than files');
});

test('a file that starts processes, changes the environment or has hooks of the top level (but after) runs alone', (t) => {
  const root = folder();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const cases: Record<string, [string, boolean]> = {
    plain: ["import { test, after } from 'node:test';\ntest('x', () => {});\nafter(() => {});\n", false],
    spawns: ["import { spawn } from 'node:child_process';\n", true],
    env: ["process.env.GEOIP_DB = 'x';\n", true],
    reads: ["if (process.env.GEOIP_DB === 'x') {}\n", false],
    hooks: ["import { beforeEach } from 'node:test';\nbeforeEach(() => {});\n", true],
    listens: ["process.on('exit', () => {});\n", true],
  };
  for (const [name, [source, alone]] of Object.entries(cases)) {
    writeFileSync(join(root, 'test', `${name}.test.ts`), source);
    assert.equal(runsAlone(root, `test/${name}.test.ts`), alone, name);
  }
});

test("a group's process: every file's tests in order, top-level after hooks once all ran, each test reported under its own file", (t) => {
  const root = folder();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const log = join(root, 'order.log');
  const write = (name: string, source: string) => writeFileSync(join(root, 'test', name), source);
  // The preload counts the tests around which its hooks ran (as helpers.ts counts nesting), the loading test aside.
  write('helpers.mjs', `import { beforeEach, after } from 'node:test';\nimport { appendFileSync } from 'node:fs';\nlet n = 0;\nbeforeEach((t) => { if (t.name !== ${JSON.stringify(GROUP_LOADING_TEST)}) n++; });\nafter(() => appendFileSync(${JSON.stringify(log)}, 'hooks saw ' + n + '\\n'));\n`);
  const note = (what: string) => `appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(`${what}\n`)})`;
  write('first.test.mjs', `import { test, after } from 'node:test';\nimport { appendFileSync } from 'node:fs';\ntest('one', () => ${note('first one')});\ntest('two', () => ${note('first two')});\nafter(() => ${note('after')});\n`);
  // A pause in the second file's top level: no test is queued then, yet the after hooks wait.
  write('second.test.mjs', `import { test } from 'node:test';\nimport { appendFileSync } from 'node:fs';\nawait new Promise((r) => setTimeout(r, 200));\ntest('three', () => ${note('second three')});\ntest('fails', () => { throw new Error('on purpose'); });\n`);
  const [group] = writeGroups(root, 'groups', 'g', ['test/first.test.mjs', 'test/second.test.mjs'], 1, () => 1, 'test/helpers.mjs');
  const times = join(root, 'times.tsv');
  // A runner of its own: not a child reporting to this one.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${REPORTER}`, `--test-reporter-destination=${times}`, join(root, group!.entry)], { cwd: root, encoding: 'utf8', env });
  assert.equal(run.status, 1, 'one test failed');
  assert.match(run.stdout, /^# pass 4$/m, run.stdout);
  assert.match(run.stdout, /^# fail 1$/m);
  assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['first one', 'first two', 'second three', 'hooks saw 4', 'after']);
  const lines = readFileSync(times, 'utf8').trim().split('\n').map((l) => l.split('\t'));
  assert.deepEqual(
    lines.filter((l) => l[0] === 'fail').map((l) => [l[1], l[2], l[3]]),
    [[join(root, 'test', 'second.test.mjs'), 'fails', 'on purpose']],
  );
  const parts = lines.filter((l) => l[0] === 'part').map((l) => l[1]);
  assert.deepEqual(parts.sort(), [join(root, 'test', 'first.test.mjs'), join(root, 'test', 'second.test.mjs')]);
  assert.ok(lines.some((l) => l.length === 2 && l[0] === join(root, group!.entry)), 'the process has its own line');
});
