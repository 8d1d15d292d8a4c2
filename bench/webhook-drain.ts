/**
 * How fast a webhook's backlog drains: N links made by bulk creates (N `link.created` events for one
 * webhook), then the time until a receiver on loopback has all of them, checked in order. In this
 * process, the app and its dispatcher as the server runs them (WEBHOOK_CONCURRENCY 8, its polling),
 * on a JSON store in a temporary directory (fsynced) or, with --pg, on a fresh PostgreSQL schema.
 * Prints deliveries per second, this process's CPU µs per delivery (the receiver's share included)
 * the connections the receiver accepted, and on PostgreSQL the statements sent per delivery.
 *   node --import tsx bench/webhook-drain.ts [--events N] [--pg] [--url URL] [--checkout DIR]
 * --checkout runs another checkout's src (a worktree of main) in the same way, for a comparison.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PG_URL } from './pg-seed.ts';

const { values } = parseArgs({ options: { events: { type: 'string', default: '5000' }, pg: { type: 'boolean', default: false }, url: { type: 'string', default: PG_URL }, checkout: { type: 'string' } } });
const root = resolve(values.checkout ?? new URL('..', import.meta.url).pathname);
const src = (p: string) => import(`${root}/src/${p}`);
const { createApp } = await src('app.ts');
const { loadConfig } = await src('config.ts');
const { ensureAdmin } = await src('bootstrap.ts');
const { systemClock } = await src('clock.ts');
const { RESOURCES, storeSchema } = await src('resources/table.ts');
const { openStore } = await src('store/open.ts');
const { WebhookDispatcher } = await src('webhooks/dispatcher.ts');
const { silentLogger } = await src('log.ts');

// Statements sent (node-postgres queries), counted while the backlog drains.
let statements = 0;
const query = pg.Client.prototype.query;
(pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: unknown, ...a: unknown[]) {
  statements++;
  return (query as (...a: unknown[]) => unknown).apply(this, a);
};

const N = Number(values.events);
const KEY = 'sk_bench_hook_key_000000000000000000000000000';
const schema = `bench_hooks_${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'bench-hooks-'));

// The receiver: keeps the aliases in the order they came, answers 200 at once.
const aliases: string[] = [];
let allIn: () => void = () => {};
const done = new Promise<void>((r) => (allIn = r));
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    aliases.push(JSON.parse(Buffer.concat(chunks).toString('utf8')).data.alias);
    res.end('ok');
    if (aliases.length === N) allIn();
  });
});
let connections = 0;
receiver.on('connection', () => connections++);
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;

const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dir, BASE_URL: 'http://sho.rt', RATE_LIMIT: '0', WEBHOOK_PRIVATE_TARGETS: 'on', ...(values.pg ? { DATABASE_URL: values.url, DATABASE_SCHEMA: schema } : {}) });
const store = await openStore({ dataDir: dir, databaseUrl: values.pg ? values.url : undefined, databaseSchema: schema, collections: storeSchema(RESOURCES) });
try {
  const clock = systemClock;
  await ensureAdmin(store, clock, KEY);
  const webhooks = new WebhookDispatcher({ store, config, clock, log: silentLogger });
  const app = createApp({ store, config, clock, webhooks });
  const call = async (path: string, body: unknown) => {
    const res = await app.request(path, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    return res.json();
  };
  await call('/api/webhooks', { url: target, events: ['link.created'] });
  const expected: string[] = [];
  for (let i = 0; i < N; i += 1000) {
    const urls = Array.from({ length: Math.min(1000, N - i) }, (_, j) => {
      expected.push(`hook-${i + j}`);
      return { url: `https://example.com/${i + j}`, custom: `hook-${i + j}` };
    });
    await call('/api/url/bulk', { urls });
  }
  // The backlog is in the store; the dispatcher starts on it, as a server restarted on a backlog does.
  const s0 = statements;
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  webhooks.start();
  await done;
  const wall = performance.now() - w0;
  const sent = statements - s0;
  const c = process.cpuUsage(c0);
  await webhooks.stop();
  const inOrder = aliases.every((a, i) => a === expected[i]);
  console.log(`${root} on ${values.pg ? 'PostgreSQL' : 'the JSON files'}: ${N} deliveries in ${(wall / 1000).toFixed(2)} s: ${Math.round(N / (wall / 1000))}/s, ${Math.round((c.user + c.system) / N)} µs CPU each in this process, ${connections} connections${values.pg ? `, ${(sent / N).toFixed(2)} statements each` : ''}; ${inOrder ? 'in order' : 'OUT OF ORDER'}`);
  if (!inOrder) process.exitCode = 1;
} finally {
  await store.close();
  receiver.closeAllConnections();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
  if (values.pg) {
    const admin = new pg.Client({ connectionString: values.url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}
