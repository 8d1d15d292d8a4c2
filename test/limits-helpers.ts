/**
 * Helpers of the many-process tests: requests on fresh connections (so a cluster's workers each get
 * some), bursts spread over servers, and the database and Redis these tests need.
 */
import { request } from 'node:http';
import { DATABASE_URL } from './pg-server.ts';

/** The Redis of these tests (`.ci/run` sets it), or undefined when they are skipped. */
export const REDIS_URL = process.env.TEST_REDIS_URL;

/** Whether the database the many-process tests need is given (npm test always gives one, its own when none is named); prints one skip line for `what` when not. */
export function databaseOrSkip(what: string): boolean {
  if (DATABASE_URL) return true;
  console.log(`# ${what} skipped (TEST_DATABASE_URL is not set)`);
  return false;
}

/** The skip reason of a test that needs Redis too, printed once as one line; false when TEST_REDIS_URL names one. */
export function redisOrSkip(what: string): string | false {
  if (REDIS_URL) return false;
  const reason = `${what} skipped (TEST_REDIS_URL is not set)`;
  console.log(`# ${reason}`);
  return reason;
}

/** A response on a connection of its own: status, headers, body text. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request on a new connection (no keep-alive: a cluster hands each connection to one worker). */
export function fresh(url: string, path: string, init: { method?: string; key?: string; body?: unknown } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = init.key ? { authorization: `Bearer ${init.key}` } : {};
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const req = request(url + path, { method: init.method ?? 'GET', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(init.body === undefined ? undefined : JSON.stringify(init.body));
  });
}

/** Waits, when the current fixed window of `windowMs` ends within `marginMs`, until the next one began: a burst then lies in one window. */
export async function awayFromWindowEdge(windowMs = 60_000, marginMs = 8000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** `n` requests with `key` at once, spread in turn over `urls`. */
export function burst(urls: readonly string[], key: string, n: number): Promise<Answer[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => fresh(urls[i % urls.length]!, '/api/account', { key })));
}

/** A fresh user (its id and key), made with the admin key on `url`. */
export async function newUser(url: string, adminKey: string): Promise<{ id: number; key: string }> {
  const name = `u${Math.random().toString(36).slice(2, 10)}`;
  const made = await fresh(url, '/api/user/add', { method: 'POST', key: adminKey, body: { username: name, email: `${name}@example.com`, password: 'secret-pw' } });
  if (made.status !== 200) throw new Error(`user/add: ${made.status} ${made.text}`);
  const { data } = JSON.parse(made.text) as { data: { id: number; apikey: string } };
  return { id: data.id, key: data.apikey };
}

/** How many lines of `output` match `re`. */
export const linesMatching = (output: string, re: RegExp): number => output.split('\n').filter((l) => re.test(l)).length;
