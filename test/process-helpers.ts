import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * How tests start the server in a process of its own: the JavaScript build `npm test` makes once
 * (test/run.ts sets TEST_SERVER_ENTRY; the same build the Docker image runs; coverage does not
 * count it), which starts on about 1 s less CPU than compiling src/main.ts through tsx each
 * time; a test file run on its own uses src/main.ts through tsx.
 */
export const ENTRY: readonly string[] = process.env.TEST_SERVER_ENTRY ? [process.env.TEST_SERVER_ENTRY] : ['--import', 'tsx', 'src/main.ts'];

/** The environment of those processes: the build's coverage is not counted, so V8 is not asked to collect it (c8's NODE_V8_COVERAGE). */
export const CHILD_ENV: NodeJS.ProcessEnv = (() => {
  if (!process.env.TEST_SERVER_ENTRY) return process.env;
  const { NODE_V8_COVERAGE: _unused, ...rest } = process.env;
  return rest;
})();

/** The key real-process tests start their servers with. */
export const PROCESS_ADMIN_KEY = 'sk_process_test_admin_000000000000000000000';

/** A server running in its own process. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

/** Runs the server's entry point (ENTRY) with `args` and waits for it to exit; returns its code and output. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...ENTRY, ...args], { cwd: ROOT, env: { ...CHILD_ENV, LOG_LEVEL: 'warn', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a server on a free port with data in `dataDir`; resolves once it listens. */
export function startProcess(dataDir: string, env: Record<string, string> = {}, options: { openFiles?: number } = {}): Promise<ServerProcess> {
  // Under an open-file limit of its own: bash sets it (soft and hard, as `ulimit -n` does) and becomes node.
  const [command, args] = options.openFiles
    ? ['bash', ['-c', `ulimit -n ${options.openFiles} && exec "$0" "$@"`, process.execPath, ...ENTRY, 'serve']]
    : [process.execPath, [...ENTRY, 'serve']];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...CHILD_ENV, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_API_KEY: PROCESS_ADMIN_KEY, LOG_LEVEL: 'info', RATE_LIMIT: '0', ...env },
  });
  let out = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, child, output: () => out, exit });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exit.then((code) => reject(new Error(`server exited with ${code} before listening:\n${out}`)));
  });
}

/** A JSON request with the admin key. */
export async function api(url: string, method: string, path: string, body?: unknown, key = PROCESS_ADMIN_KEY): Promise<{ status: number; body: any }> {
  // any: callers read whichever fields the endpoint answers, asserting each one
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
