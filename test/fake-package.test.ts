import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as impl from '../src/fake/index.ts';
import type * as Public from '../src/fake/public.d.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

// Compile-time: the implementation still satisfies the declarations consumers compile against
// (tsc --noEmit, part of npm test, fails here when they drift apart).
const conforms: [typeof Public.startFakeServer, typeof Public.FAKE_ADMIN_KEY, typeof Public.FAKE_NOW, typeof Public.FixtureError] = [
  impl.startFakeServer,
  impl.FAKE_ADMIN_KEY,
  impl.FAKE_NOW,
  impl.FixtureError,
];

/** A project that depends on this package the way npm installs it: node_modules/<name> (a link here). */
async function consumer(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-consumer-'));
  await mkdir(join(dir, 'node_modules', '@types'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules', 'shortlink-analytics-server'), 'dir');
  await symlink(join(ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  return dir;
}

test('package.json exports ./fake with its declarations and a plain-Node entry', async () => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.exports['./fake'], { types: './src/fake/public.d.ts', default: './src/fake/entry.js' });
  assert.equal(conforms.length, 4);
  const entry = await readFile(join(ROOT, 'src/fake/entry.js'), 'utf8');
  for (const name of Object.keys(impl).filter((k) => k !== 'default')) assert.match(entry, new RegExp(`\\b${name}\\b`), `entry.js re-exports ${name}`);
});

test('a plain JavaScript test (no loader) starts the fake through the package name', async () => {
  const dir = await consumer();
  await writeFile(
    join(dir, 'uses-fake.test.js'),
    `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeServer, FAKE_ADMIN_KEY } from 'shortlink-analytics-server/fake';
test('the fake answers', async () => {
  const fake = await startFakeServer();
  const res = await fetch(fake.url + '/api/account', { headers: { authorization: 'Bearer ' + FAKE_ADMIN_KEY } });
  assert.equal(res.status, 200);
  await fake.close();
});
`,
  );
  // A test runner of its own, not a subtest of this one.
  const { NODE_TEST_CONTEXT: _ours, ...env } = process.env;
  const { stdout } = await run(process.execPath, ['--test', '--test-reporter=tap', 'uses-fake.test.js'], { cwd: dir, env });
  assert.match(stdout, /# pass 1/);
});

test("a TypeScript consumer with ordinary settings type-checks against the declarations, without compiling this package's sources", async () => {
  const dir = await consumer();
  await writeFile(
    join(dir, 'uses-fake.ts'),
    `import { startFakeServer } from 'shortlink-analytics-server/fake';
import type { FakeServer } from 'shortlink-analytics-server/fake';
export async function demo(): Promise<number> {
  const fake: FakeServer = await startFakeServer({ users: [{ email: 'a@example.com', apikey: 'sk_test_a_000000000000' }], rateLimit: { link: 5 } });
  const res = await fake.app.request('/health');
  await fake.seed({ links: [] });
  fake.clock.advance(1000);
  await fake.close();
  return res.status + (await fake.store.count('links'));
}
// @ts-expect-error: an unknown option is refused
void startFakeServer({ nonsense: true });
`,
  );
  // No allowImportingTsExtensions, no special settings (this repository's own tsc checks public.d.ts itself).
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, files: ['uses-fake.ts'] }));
  const result = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.', '--listFiles'], { cwd: dir }).catch((err: { stdout: string }) => err);
  assert.ok(!('code' in result && result.code), result.stdout);
  const files = result.stdout.split('\n');
  assert.ok(files.some((f) => f.endsWith('src/fake/public.d.ts')));
  assert.ok(!files.some((f) => /\/src\/.*\.ts$/.test(f) && !f.endsWith('.d.ts')), 'no source file of the package was compiled');
});
