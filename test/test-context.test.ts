import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm test` gives node:test's harness a cheaper async hook (test/runner/test-context.mjs): errors
 * that reach the process from a test's timers, ticks and floating promises must still fail the
 * test they came from, with their own message, and the others pass.
 */
const CONTEXT = fileURLToPath(new URL('./runner/test-context.mjs', import.meta.url));

// Node 20 gets the cheaper hook (the marker); another Node keeps its own harness, checked the same way.
const FIXTURE = `
import { test } from 'node:test';
import assert from 'node:assert/strict';
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
test('passes', async () => { await wait(2); });
test('timer throws after an await', async () => { await wait(1); setTimeout(() => { throw new Error('boom from a timer'); }, 1); await wait(40); });
test('floating rejection after awaits', async () => { await wait(1); await Promise.resolve(); Promise.reject(new Error('boom from a promise')); await wait(40); });
test('tick throws inside a nested promise chain', async () => { await Promise.resolve().then(() => wait(1)).then(() => process.nextTick(() => { throw new Error('boom from a tick'); })); await wait(40); });
test('passes too', () => {});
test('the hook in place', () => {
  const major = Number(process.versions.node.split('.')[0]);
  const expected = process.env.EXPECT_CONTEXT === '1' && major === 20 ? 'cheaper' : undefined;
  assert.equal(globalThis[Symbol.for('shortlink.test-context')], expected);
});
`;

/** The TAP report of the fixture run as npm test runs files: a process of its own with the preload. */
function run(withContext: boolean): { status: number | null; tap: string } {
  const dir = mkdtempSync(join(tmpdir(), 'shortlink-test-context-'));
  try {
    writeFileSync(join(dir, 'fixture.test.mjs'), FIXTURE);
    const args = [...(withContext ? ['--import', CONTEXT] : []), '--test', '--test-reporter=tap', join(dir, 'fixture.test.mjs')];
    // Its own run of node's runner, not a part of this file's (NODE_TEST_CONTEXT), nor counted for coverage.
    const { NODE_TEST_CONTEXT: _context, NODE_V8_COVERAGE: _coverage, ...env } = process.env;
    const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...env, EXPECT_CONTEXT: withContext ? '1' : '0' } });
    return { status: r.status, tap: r.stdout + r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each test's verdict and the error of the failed ones, from the TAP report. */
function verdicts(tap: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = tap.split('\n');
  lines.forEach((line, i) => {
    const m = /^\s*(not ok|ok) \d+ - (.+)$/.exec(line);
    if (!m || m[2]!.endsWith('.mjs')) return;
    const error = m[1] === 'not ok' ? /error: '([^']+)'/.exec(lines.slice(i, i + 20).join('\n'))?.[1] : undefined;
    out[m[2]!] = error ? `not ok: ${error}` : m[1]!;
  });
  return out;
}

test('errors from timers, ticks and floating promises fail their own tests, with the cheaper hook as with Node’s', () => {
  const expected = {
    passes: 'ok',
    'timer throws after an await': 'not ok: boom from a timer',
    'floating rejection after awaits': 'not ok: boom from a promise',
    'tick throws inside a nested promise chain': 'not ok: boom from a tick',
    'passes too': 'ok',
    'the hook in place': 'ok',
  };
  for (const withContext of [false, true]) {
    const { status, tap } = run(withContext);
    assert.equal(status, 1, tap);
    assert.deepEqual(verdicts(tap), expected, tap);
    assert.doesNotMatch(tap, /after the test ended/, 'no error is left without its test');
  }
});
