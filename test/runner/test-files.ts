/**
 * One pass of `npm test`: node's test runner over a list of files in a process of its own, its TAP
 * report passed through (or held and printed whole later), its totals and each file's duration read
 * off the report.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPORTER = fileURLToPath(new URL('./file-times-reporter.js', import.meta.url));
const CPU_TIME = fileURLToPath(new URL('./cpu-time.ts', import.meta.url));
// node:test's harness with a cheaper async hook (no destroy tracking of every promise).
const TEST_CONTEXT = fileURLToPath(new URL('./test-context.mjs', import.meta.url));
const TS_LOADER = fileURLToPath(new URL('./ts-loader.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What one pass counted. */
export interface Tally {
  pass: number;
  fail: number;
  skipped: number;
}

/**
 * What each test process cost, in ms by its file (a test file, or a group's module): the time it
 * took, and the CPU it and its children used; and the time of each file run in a group (its tests').
 */
export interface FileTimes {
  wall: Map<string, number>;
  cpu: Map<string, number>;
  parts: Map<string, number>;
}

/** How a pass ended: the runner's exit code, its totals, what each file cost, and its failed tests (`file: name: message`). */
export interface PassResult {
  code: number;
  tally: Tally;
  times: FileTimes;
  failures: string[];
}

const running = new Set<ChildProcess>();

/** Runs node's test runner over `files`; its report goes to stdout as it comes, or, `held`, all at once when asked. */
export function runTestFiles(files: string[], env: Record<string, string>, concurrency: number, held = false): { done: Promise<PassResult>; release: () => void } {
  const kept: Buffer[] = [];
  let released = !held;
  const done = new Promise<PassResult>((resolve) => {
    const folder = mkdtempSync(join(tmpdir(), 'shortlink-test-times-'));
    // TAP whatever stdout is (the totals are read from it); each file's time and CPU into the folder.
    const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${REPORTER}`, `--test-reporter-destination=${join(folder, 'wall.tsv')}`];
    const child = spawn(process.execPath, ['--import', TEST_CONTEXT, '--import', TS_LOADER, '--import', CPU_TIME, '--test', ...reporters, `--test-concurrency=${concurrency}`, ...files], {
      env: { ...process.env, ...env, TEST_CPU_TIMES: join(folder, 'cpu.tsv') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    running.add(child);
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (released) process.stdout.write(chunk);
      else kept.push(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-4000);
    });
    child.on('close', (code) => {
      running.delete(child);
      const times = { wall: readTimes(join(folder, 'wall.tsv')), cpu: readTimes(join(folder, 'cpu.tsv')), parts: readTimes(join(folder, 'wall.tsv'), 'part') };
      const failures = readFailures(join(folder, 'wall.tsv'));
      rmSync(folder, { recursive: true, force: true });
      const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tail)?.[1] ?? 0);
      // A test cancelled (its timeout, or its file's process died) did not pass: it counts as failed.
      resolve({ code: code ?? 1, tally: { pass: count('pass'), fail: count('fail') + count('cancelled'), skipped: count('skipped') }, times, failures });
    });
  });
  const release = () => {
    for (const chunk of kept.splice(0)) process.stdout.write(chunk);
    released = true;
  };
  return { done, release };
}

/** Sends `signal` to every pass still running (the runner was interrupted). */
export function interruptPasses(signal: NodeJS.Signals): void {
  for (const child of running) child.kill(signal);
}

/** The `n` files that took longest, slowest first, as `name 12.3 s (CPU 4.5 s)`; `suffix` marks a pass's files. */
export function slowest(times: FileTimes, n: number, suffix = ''): Array<{ ms: number; line: string }> {
  const seconds = (ms: number | undefined) => (ms === undefined ? '?' : (ms / 1000).toFixed(1));
  return [...times.wall]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([file, ms]) => ({ ms, line: `${shortName(file)}${suffix} ${seconds(ms)} s (CPU ${seconds(times.cpu.get(file))} s)` }));
}

/** A test file's or group's name without its folder and `.test.ts` (`links`, `file-group-2`). */
export const shortName = (file: string): string => file.replace(/^.*\//, '').replace(/\.test\.m?[jt]s$/, '');

/** The sum of `times` (the CPU of a pass). */
export const total = (times: Map<string, number>): number => [...times.values()].reduce((a, b) => a + b, 0);

/**
 * Every process and every grouped file of every pass, slowest first: `file<TAB>pass<TAB>wall ms<TAB>CPU ms`
 * under a header (a grouped file's CPU is its group's, and left blank).
 */
export function timesTable(passes: Record<string, FileTimes>): string {
  const rows = Object.entries(passes).flatMap(([pass, t]) => [...t.wall, ...t.parts].map(([file, ms]) => ({ file, pass, ms, cpu: t.cpu.get(file) })));
  rows.sort((a, b) => b.ms - a.ms);
  return ['file\tpass\twall_ms\tcpu_ms', ...rows.map((r) => `${r.file}\t${r.pass}\t${Math.round(r.ms)}\t${r.cpu ?? ''}`)].join('\n') + '\n';
}

const readLines = (path: string): string[] => {
  try {
    return readFileSync(path, 'utf8').split('\n');
  } catch {
    return [];
  }
};

/** The `file<TAB>ms` lines of a times file, or with `kind`, its `kind<TAB>file<TAB>ms` lines. */
function readTimes(path: string, kind?: string): Map<string, number> {
  const times = new Map<string, number>();
  for (const line of readLines(path)) {
    const cells = line.split('\t');
    if (kind ? cells[0] !== kind : cells.length !== 2) continue;
    const [file, ms] = kind ? cells.slice(1) : cells;
    if (file && ms) times.set(relative(ROOT, file), Number(ms));
  }
  return times;
}

/** The reporter's `fail` lines, as `file: test: message`. */
function readFailures(path: string): string[] {
  return readLines(path)
    .filter((line) => line.startsWith('fail\t'))
    .map((line) => {
      const [, file = '?', name = '', message = ''] = line.split('\t');
      return `${file === '?' ? file : relative(ROOT, file)}: ${name}: ${message}`;
    });
}
