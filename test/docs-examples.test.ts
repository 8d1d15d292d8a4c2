// Every curl example of the README and docs/, run in reading order as a reader runs them: a real
// server process per page, started with the settings of the page's own `npm start` line, the
// variables the page tells the reader to set (KEY from the key the start printed, API, values
// copied from an answer), and /usr/bin/curl. Each curl must answer 2xx/3xx and no error body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SETTINGS } from '../src/config.ts';
import { CHILD_ENV, ENTRY } from './process-helpers.ts';
import { ROOT, codeBlocks, readingOrder } from './docs-markdown.ts';
import type { DocPage } from './docs-markdown.ts';

const CURL = '/usr/bin/curl';

/** One command of a page: a line, or lines joined by a trailing backslash. */
interface Example {
  line: number;
  text: string;
}

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=/;

/**
 * The commands of a page's shell blocks that hold a curl call or set variables only (`KEY=...`),
 * minus blocks marked `<!-- docs-examples: skip (why) -->`.
 */
function examplesOf(page: DocPage): Example[] {
  const out: Example[] = [];
  for (const block of codeBlocks(page.text)) {
    const commands = block.lines.filter((l) => l.trim() && !l.trim().startsWith('#'));
    if (block.lang !== 'sh' || !(commands.some((l) => /^curl\s/.test(l)) || commands.every((l) => ASSIGNMENT.test(l) && !/\bnpm\b/.test(l)))) continue;
    if (block.marker?.includes('docs-examples:')) {
      assert.match(block.marker, /^<!-- docs-examples: skip \(.+\) -->$/, `${page.path}:${block.firstLine}: a marker says skip and why`);
      continue;
    }
    let text = '';
    let first = 0;
    block.lines.forEach((l, i) => {
      if (!text) first = block.firstLine + i;
      text += l.endsWith('\\') ? l.slice(0, -1) : l;
      if (l.endsWith('\\')) return;
      if (text.trim() && !text.trim().startsWith('#')) out.push({ line: first, text: text.trim() });
      text = '';
    });
  }
  return out;
}

/** The settings of the page's start command (`DATA_DIR=:memory: RATE_LIMIT=1000 npm start`), the first in its shell blocks. */
function startSettings(page: DocPage): Record<string, string> {
  for (const block of codeBlocks(page.text)) {
    if (block.lang !== 'sh') continue;
    for (const l of block.lines) {
      const m = /^((?:[A-Z_]+=\S+\s+)*)npm (?:install && npm )?start\b/.exec(l);
      if (m) return Object.fromEntries([...m[1]!.matchAll(/([A-Z_]+)=(\S+)/g)].map((s) => [s[1]!, s[2]!]));
    }
  }
  assert.fail(`${page.path} has curl examples but no \`npm start\` line saying how to start the server they run against`);
}

/** A server started as the page says, on a free port and (unless the page keeps it in memory) a fresh data directory. */
async function startAsPage(settings: Record<string, string>, dir: string) {
  // The page's settings only: none of ours leaks in from the environment the tests run in.
  const env: NodeJS.ProcessEnv = { ...CHILD_ENV };
  for (const s of SETTINGS) delete env[s.env];
  const child = spawn(process.execPath, [...ENTRY, 'serve'], {
    cwd: ROOT,
    env: { ...env, DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info', ...settings, PORT: '0', HOST: '127.0.0.1' },
  });
  let out = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exit.then((code) => reject(new Error(`server exited with ${code} before listening:\n${out}`)));
  });
  const key = settings.ADMIN_API_KEY ?? /Admin API key: (sk_\S+)/.exec(out)?.[1];
  assert.ok(key, `the first start printed the admin key:\n${out}`);
  const stop = async () => {
    child.kill('SIGTERM');
    await exit;
  };
  return { url, key, stop, output: () => out };
}

/** Runs one command in bash, in `cwd`, with the variables set so far; curl is /usr/bin/curl, which also writes each answer's status to stderr. */
function runShell(command: string, vars: Record<string, string>, cwd: string, bin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, env: { PATH: `${bin}:${process.env.PATH}`, HOME: cwd, LANG: 'C.UTF-8', ...vars } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The value at `path` (`apikey`, `data.id`) of a JSON answer. */
function pick(answer: unknown, path: string): string | undefined {
  let at: unknown = answer;
  for (const part of path.split('.')) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  return typeof at === 'string' || typeof at === 'number' ? String(at) : undefined;
}

/** Whether a JSON answer is one of the APIs' error bodies. */
function isErrorBody(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return b.error === 1 || b.error === '1' || (typeof b.status === 'number' && b.status >= 400);
}

const pages = readingOrder().map((page) => ({ page, examples: examplesOf(page) }));

test('the README and the API guide have curl examples for this test to run', () => {
  const count = (path: string) => pages.find((p) => p.page.path === path)?.examples.filter((e) => /^curl\s/.test(e.text)).length ?? 0;
  assert.ok(count('README.md') >= 5, `README.md: ${count('README.md')} curl examples`);
  assert.ok(count('docs/api-guide.md') >= 30, `docs/api-guide.md: ${count('docs/api-guide.md')} curl examples`);
});

for (const { page, examples } of pages.filter((p) => p.examples.length > 0)) {
  test(`every curl example of ${page.path} works, in order`, { skip: existsSync(CURL) ? false : `no ${CURL} on this machine` }, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-examples-'));
    const bin = join(dir, 'bin');
    const work = join(dir, 'work');
    for (const d of [bin, work]) mkdirSync(d);
    // Each answer's status goes to stderr; this --write-out comes last, so it wins over a page's own -w.
    writeFileSync(join(bin, 'curl'), `#!/bin/sh\nexec ${CURL} --max-time 10 "$@" --write-out '%{stderr}::status=%{http_code}::\\n'\n`);
    chmodSync(join(bin, 'curl'), 0o755);
    let server: Awaited<ReturnType<typeof startAsPage>> | undefined;
    const vars: Record<string, string> = {};
    let answer: unknown = undefined;
    try {
      server = await startAsPage(startSettings(page), dir);
      const started = server;
      for (const ex of examples) {
        await t.test(`${page.path}:${ex.line} ${ex.text.slice(0, 90)}`, async () => {
          const assign = ASSIGNMENT.exec(ex.text);
          if (assign && !/\bcurl\b/.test(ex.text)) {
            const name = assign[1]!;
            const copied = /# the "([\w.]+)" of the answer above/.exec(ex.text);
            if (copied) {
              const value = pick(answer, copied[1]!);
              assert.ok(value, `the answer above has "${copied[1]}": ${JSON.stringify(answer)}`);
              vars[name] = value;
            } else if (name === 'KEY') vars.KEY = started.key;
            else if (name === 'API') vars.API = started.url;
            else {
              const r = await runShell(`${ex.text}\nprintf '%s' "$${name}"`, vars, work, bin);
              assert.equal(r.code, 0, r.stderr);
              vars[name] = r.stdout;
            }
            return;
          }
          const r = await runShell(ex.text, vars, work, bin);
          const statuses = [...r.stderr.matchAll(/::status=(\d{3})::/g)].map((m) => Number(m[1]));
          assert.equal(r.code, 0, `exit code ${r.code}: ${r.stderr}`);
          if (!/\bcurl\b/.test(ex.text)) return;
          assert.ok(statuses.length > 0, `curl answered: ${r.stderr}`);
          for (const s of statuses) assert.ok(s >= 200 && s < 400, `status ${s}: ${r.stdout.slice(0, 500)}`);
          let body: unknown = undefined;
          try {
            body = JSON.parse(r.stdout);
          } catch {
            // Not JSON: a page, an image saved with -o, headers with -i, or an empty 202.
          }
          assert.ok(!isErrorBody(body), `an error body: ${r.stdout.slice(0, 500)}`);
          if (body !== undefined) answer = body;
        });
      }
    } finally {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
