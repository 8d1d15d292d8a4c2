import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import type { Config } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import type { Logger } from '../src/log.ts';
import { startServer } from '../src/server.ts';
import type { RunningServer } from '../src/server.ts';
import { backendEnv } from './backend.ts';

/** The admin key of live test servers. */
export const LIVE_ADMIN_KEY = 'sk_live_test_admin_00000000000000000000000';

/** A fresh temporary data directory. */
export const tempDir = () => mkdtemp(join(tmpdir(), 'live-test-'));

/** Starts a real server on a free loopback port (data in `dir`, or in memory). */
export async function liveServer(dir = ':memory:', overrides: Partial<Config> = {}, log: Logger = silentLogger): Promise<RunningServer & { api: (method: string, path: string, body?: unknown, key?: string) => Promise<{ status: number; body: any }> }> {
  // A server in memory runs on the pass's backend; one on a directory tests the files themselves.
  const backend = dir === ':memory:' ? backendEnv() : {};
  const config = { ...loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_API_KEY: LIVE_ADMIN_KEY, RATE_LIMIT: '0', LOG_LEVEL: 'silent', ...backend }), ...overrides };
  const running = await startServer(config, { log, print: () => {} });
  // any: each test reads the fields of the endpoint it calls and asserts them
  const api = async (method: string, path: string, body?: unknown, key = LIVE_ADMIN_KEY) => {
    const res = await fetch(running.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  return { ...running, api };
}

/** A GET that does not follow redirects. */
export function visit(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers });
}
