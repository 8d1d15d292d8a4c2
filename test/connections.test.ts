/**
 * Connection hygiene on a real server process: per-client and total caps that refuse or make room
 * at once, header and body timeouts that close slow clients, the keep-alive timeout, and the
 * warning when the open-file limit cannot hold the cap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { connectionCap, openFileLimit } from '../src/http/descriptor-limit.ts';
import { isTrustedPeer } from '../src/http/trust-proxy.ts';
import { startProcess } from './process-helpers.ts';
import type { ServerProcess } from './process-helpers.ts';

const portOf = (server: ServerProcess) => Number(new URL(server.url).port);

/**
 * A client that sends a request's headers a line at a time, never finishing. `settled` resolves once
 * it is connected or closed; `closed` with the milliseconds from its connection to the server closing it.
 */
function slowHeaders(port: number, localAddress = '127.0.0.1'): { socket: Socket; settled: Promise<void>; closed: Promise<number> } {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => {});
  let connectedAt = Date.now();
  const settled = new Promise<void>((resolve) => {
    socket.once('connect', () => {
      connectedAt = Date.now();
      socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n');
      resolve();
    });
    socket.once('close', () => resolve());
  });
  const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 300);
  const closed = new Promise<number>((resolve) => socket.once('close', () => (clearInterval(drip), resolve(Date.now() - connectedAt))));
  return { socket, settled, closed };
}

/** `count` slow clients, opened fifty at a time so that each is connected (not waiting in the listen queue) when counted. */
async function manySlow(port: number, count: number): Promise<ReturnType<typeof slowHeaders>[]> {
  const all: ReturnType<typeof slowHeaders>[] = [];
  while (all.length < count) {
    const batch = Array.from({ length: Math.min(50, count - all.length) }, () => slowHeaders(port));
    await Promise.all(batch.map((s) => s.settled));
    all.push(...batch);
  }
  return all;
}

/** GET `path` from another client address; its status, or the error, within `ms`. */
function getFrom(port: number, path: string, localAddress: string, ms: number): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress, agent: false, timeout: ms }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => resolve(err.message));
    req.end();
  });
}

async function withServer(env: Record<string, string>, fn: (server: ServerProcess) => Promise<void>, options: { openFiles?: number } = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'connections-'));
  const server = await startProcess(join(dir, 'data'), { LOG_LEVEL: 'info', ...env }, options);
  try {
    await fn(server);
    return server.output();
  } finally {
    server.child.kill('SIGTERM');
    await server.exit;
    await rm(dir, { recursive: true, force: true });
  }
}

test('1,100 slow clients under an open-file limit of 1024: another client is served within a second, and the slow ones are closed', async () => {
  const output = await withServer({ HEADERS_TIMEOUT: '6', MAX_CLIENT_CONNECTIONS: '128' }, async (server) => {
    const port = portOf(server);
    const slow = await manySlow(port, 1100);
    const gone = slow.map((s) => s.closed);
    const served = await getFrom(port, '/health', '127.0.0.2', 1000);
    assert.equal(served, 200, 'another client is answered within a second');
    const times = await Promise.all(gone);
    // Past the address's cap, connections are refused at once, not left to hang.
    const refusedAtOnce = times.filter((ms) => ms < 1500).length;
    assert.ok(refusedAtOnce >= 1100 - 128, `${refusedAtOnce} refused at once`);
    const held = times.filter((ms) => ms >= 1500);
    assert.ok(held.length <= 128 && Math.min(...held) >= 5000 && Math.max(...held) < 12_000, `${held.length} slow clients held, closed after ${Math.min(...held)}-${Math.max(...held)} ms (HEADERS_TIMEOUT 6 s)`);
    assert.equal(await getFrom(port, '/health', '127.0.0.1', 1000), 200, 'once the slow ones are gone, their address is served again');
  }, { openFiles: 1024 });
  assert.match(output, /The open-file limit \(1024\) allows only 950 connections per process: raise it/, 'a limit this low is worth a word');
});

test('at the total cap the oldest connection waiting for a request makes room for a new client', async () => {
  await withServer({ HEADERS_TIMEOUT: '30', MAX_CONNECTIONS: '40', MAX_CLIENT_CONNECTIONS: '0' }, async (server) => {
    const port = portOf(server);
    const slow = await manySlow(port, 40);
    assert.equal(await getFrom(port, '/health', '127.0.0.2', 1000), 200);
    // The first slow client was the oldest waiting: it was closed for the new one, long before HEADERS_TIMEOUT.
    const first = await Promise.race([slow[0]!.closed, new Promise<string>((r) => setTimeout(() => r('still open'), 2000))]);
    assert.equal(typeof first, 'number', 'the oldest slow connection was closed');
    for (const s of slow) s.socket.destroy();
  });
});

test('a body slower than MIN_BODY_RATE gets 408 and its connection closes; a normal body is served', async () => {
  await withServer({ HEADERS_TIMEOUT: '1', MIN_BODY_RATE: '1000' }, async (server) => {
    const port = portOf(server);
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => {});
    let answer = '';
    socket.on('data', (d) => (answer += d));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('POST /api/event HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{');
    const drip = setInterval(() => socket.writable && socket.write(' '), 200);
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the slow body was never cut off')), 6000))]).finally(() => clearInterval(drip));
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /too slowly/);
    const fast = await fetch(`${server.url}/api/event`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0' }, body: JSON.stringify({ page: 'https://nowhere.example/' }) });
    // Read whole and answered as any event for a domain nobody tracks.
    assert.deepEqual([fast.status, await fast.json()], [404, { error: 1, message: 'Website not found.' }]);
  });
});

test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT', async () => {
  await withServer({ KEEP_ALIVE_TIMEOUT: '1' }, async (server) => {
    const socket = connect({ host: '127.0.0.1', port: portOf(server) });
    let answer = '';
    socket.on('data', (d) => (answer += d));
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const sent = Date.now();
    const at = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(0), 5000))]);
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.ok(at > 0, 'closed by the server');
    assert.ok(at - sent >= 900, 'kept for the keep-alive timeout first');
  });
});

test('a cap the open-file limit cannot hold is lowered, with a warning at start', async () => {
  const output = await withServer({ MAX_CONNECTIONS: '5000' }, async (server) => {
    assert.equal(await getFrom(portOf(server), '/health', '127.0.0.1', 2000), 200);
  }, { openFiles: 512 });
  assert.match(output, /The open-file limit \(512\) is below what MAX_CONNECTIONS=5000 needs \(5074\): at most 438 connections are kept; raise it \(LimitNOFILE=65536/);
});

test('connectionCap: auto takes what the limit leaves beside the reserve; explicit caps are kept when they fit', () => {
  assert.deepEqual(connectionCap('auto', 1_048_576, 74), { cap: 65_536, warning: null });
  assert.deepEqual(connectionCap('auto', 20_000, 74), { cap: 19_926, warning: null });
  const low = connectionCap('auto', 1024, 74);
  assert.equal(low.cap, 950);
  assert.match(low.warning ?? '', /allows only 950 connections per process/);
  assert.deepEqual(connectionCap(500, 1024, 74), { cap: 500, warning: null });
  assert.equal(connectionCap(5000, 1024, 74).cap, 950);
  assert.deepEqual(connectionCap('auto', null, 74), { cap: 4096, warning: null });
  assert.equal(connectionCap(20, null, 74).cap, 20);
});

test('openFileLimit reads the soft limit of /proc/self/limits', () => {
  const limits = 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n';
  assert.equal(openFileLimit(() => limits), 1024);
  assert.equal(openFileLimit(() => limits.replace('1024 ', 'unlimited ')), Number.MAX_SAFE_INTEGER);
  assert.equal(openFileLimit(() => 'nothing here'), null);
  assert.equal(openFileLimit(() => { throw new Error('ENOENT'); }), null);
  const here = openFileLimit();
  assert.ok(here === null || here > 0);
});

test('isTrustedPeer: proxies of TRUST_PROXY are not capped per address', () => {
  assert.equal(isTrustedPeer('10.0.0.5', false), false);
  assert.equal(isTrustedPeer('10.0.0.5', true), true);
  assert.equal(isTrustedPeer('10.0.0.5', 2), true);
  assert.equal(isTrustedPeer('10.0.0.5', ['10.0.0.0/8']), true);
  assert.equal(isTrustedPeer('::ffff:10.0.0.5', ['10.0.0.0/8']), true);
  assert.equal(isTrustedPeer('192.0.2.1', ['10.0.0.0/8']), false);
});

test('the connection settings are checked at start', () => {
  const c = loadConfig({});
  assert.deepEqual([c.headersTimeout, c.requestTimeout, c.keepAliveTimeout, c.minBodyRate, c.maxConnections, c.maxClientConnections], [10, 120, 5, 1024, 'auto', 128]);
  assert.equal(loadConfig({ MAX_CONNECTIONS: '300' }).maxConnections, 300);
  assert.throws(() => loadConfig({ MAX_CONNECTIONS: '0' }), /Invalid MAX_CONNECTIONS: "0" is not a number of connections/);
  assert.throws(() => loadConfig({ HEADERS_TIMEOUT: '0' }), /Invalid HEADERS_TIMEOUT: "0" must be at least 1 second/);
  assert.throws(() => loadConfig({ HEADERS_TIMEOUT: '60', REQUEST_TIMEOUT: '30' }), /Invalid REQUEST_TIMEOUT: 30 must be at least HEADERS_TIMEOUT \(60\)/);
});
