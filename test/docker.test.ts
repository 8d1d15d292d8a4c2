import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One Dockerfile instruction: its keyword and arguments, continuation lines joined. */
interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's stages, each a FROM line and the instructions under it. */
async function stages(): Promise<Instruction[][]> {
  const text = (await readFile(join(ROOT, 'Dockerfile'), 'utf8')).replace(/\\\n/g, ' ');
  const out: Instruction[][] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(trimmed) ?? [];
    if (keyword.toUpperCase() === 'FROM') out.push([]);
    out.at(-1)!.push({ keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ').trim() });
  }
  return out;
}

const all = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword).map((i) => i.args);
const one = (stage: Instruction[], keyword: string) => {
  const found = all(stage, keyword);
  assert.equal(found.length, 1, `exactly one ${keyword}`);
  return found[0]!;
};

/** `ENV A=1 B=2` instructions of a stage, as a map. */
function envOf(stage: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const args of all(stage, 'ENV')) for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) env[k!] = v!;
  return env;
}

test('the Dockerfile: node:20-slim builder with npm ci, production-only final stage, non-root, volume, port, healthcheck, exec-form CMD', async () => {
  const [builder, final, ...rest] = await stages();
  assert.ok(builder && final && rest.length === 0, 'two stages');
  assert.equal(one(builder, 'FROM'), 'node:20-slim AS builder');
  assert.ok(all(builder, 'RUN').some((r) => /^npm ci\b/.test(r) && !r.includes('--omit=dev')), 'the builder installs every dependency');
  assert.ok(all(builder, 'RUN').some((r) => r.includes('tsc --noEmit')), 'the builder type-checks');
  assert.ok(all(builder, 'RUN').some((r) => r.includes('npm run build')), 'and builds the JavaScript the server runs from');

  assert.equal(one(final, 'FROM'), 'node:20-slim');
  assert.ok(all(final, 'RUN').some((r) => /^npm ci --omit=dev\b/.test(r)), 'production dependencies only');
  assert.ok(all(final, 'COPY').some((c) => c === '--from=builder /app/dist ./dist'));
  assert.ok(all(final, 'COPY').some((c) => c === '--from=builder /app/src ./src'), 'the sources stay for the shortlink-server command');
  assert.ok(!all(final, 'COPY').some((c) => c.includes('node_modules')), 'no dev dependencies copied over');
  const user = one(final, 'USER');
  assert.ok(!['root', '0', '0:0'].includes(user), `runs as ${user}`);
  assert.equal(one(final, 'WORKDIR'), '/app');
  assert.equal(one(final, 'VOLUME'), '/app/data');
  assert.equal(one(final, 'EXPOSE'), '3000');
  const env = envOf(final);
  assert.equal(env.DATA_DIR, '/app/data');
  assert.equal(env.HOST, '0.0.0.0');
  assert.deepEqual(JSON.parse(one(final, 'CMD')), ['node', 'dist/main.js', 'serve']);
  const health = one(final, 'HEALTHCHECK');
  assert.match(health, /^--interval=\S+ --timeout=\S+ .*CMD \[/);
  const check = JSON.parse(health.slice(health.indexOf('CMD ') + 4)) as string[];
  assert.equal(check[0], 'node');
  assert.match(check.join(' '), /\/health/);

  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  assert.ok(pkg.dependencies.tsx, 'tsx is a runtime dependency: the shortlink-server command needs it after npm ci --omit=dev');
  assert.equal(pkg.scripts.start, 'node --import tsx src/main.ts serve');
  assert.equal(pkg.scripts['start:dist'], 'node dist/main.js serve', 'npm run start:dist runs what the image runs');
});

test('.dockerignore keeps the context small, and everything COPY needs is in it', async () => {
  const ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const entry of ['node_modules', 'data', '.git', 'coverage', 'test']) assert.ok(ignored.includes(entry), entry);
  const [builder, final] = await stages();
  const sources = [...all(builder!, 'COPY'), ...all(final!, 'COPY')].filter((c) => !c.startsWith('--from')).flatMap((c) => c.split(' ').slice(0, -1));
  assert.deepEqual([...new Set(sources)].sort(), ['bin', 'package-lock.json', 'package.json', 'src', 'tsconfig.json']);
  assert.ok(ignored.includes('dist'), 'dist/ is built in the image, never copied in');
  for (const source of sources) {
    assert.ok(existsSync(join(ROOT, source)), `${source} exists`);
    assert.ok(!ignored.includes(source), `${source} is not ignored`);
  }
});

test("the image's CMD with the image's environment: /health answers, the HEALTHCHECK passes, SIGTERM exits 0 with the data written", async () => {
  const [, final] = await stages();
  const cmd = JSON.parse(one(final!, 'CMD')) as string[];
  // What the builder stage does before the CMD can run: `npm run build`, into dist/ (its type check is
  // npm test's own). Under npm test the runner has made that same build already (TEST_SERVER_ENTRY,
  // its main.js): the CMD's dist/ is read as that folder.
  const made = process.env.TEST_SERVER_ENTRY ? dirname(process.env.TEST_SERVER_ENTRY) : null;
  if (!made) {
    const build = spawnSync(process.execPath, [join(ROOT, 'bin/build.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stdout + build.stderr);
  }
  const args = cmd.slice(1).map((a) => (made && a.startsWith('dist/') ? join(made, a.slice('dist/'.length)) : a));
  const health = one(final!, 'HEALTHCHECK');
  const check = JSON.parse(health.slice(health.indexOf('CMD ') + 4)) as string[];
  const dataDir = await mkdtemp(join(tmpdir(), 'docker-test-'));
  // The image's ENV, but a temporary data directory and a free port (3000 may be taken here).
  const env = { ...process.env, ...envOf(final!), DATA_DIR: dataDir, PORT: '0', ADMIN_API_KEY: 'sk_docker_test_admin_0000000000' };
  const child = spawn(cmd[0] === 'node' ? process.execPath : cmd[0]!, args, { cwd: ROOT, env });
  let output = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const onData = (d: Buffer) => {
        output += d;
        const m = /listening on (http:\/\/[\d.]+:(\d+))/.exec(output);
        if (m) resolve(m[1]!);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exit.then((code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
    });
    const res = await fetch(`${url}/health`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
    const port = new URL(url).port;
    const runCheck = (p: string) =>
      new Promise<number | null>((resolve) => spawn(process.execPath, check.slice(1), { env: { ...env, PORT: p }, stdio: 'ignore' }).on('exit', resolve));
    assert.equal(await runCheck(port), 0, 'the HEALTHCHECK command passes against the server');
    assert.equal(await runCheck('1'), 1, 'and fails when nothing answers');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exit, 0, output);
  assert.ok((await readdir(dataDir)).includes('users.json'), 'the data was written to DATA_DIR on the way out');
});
