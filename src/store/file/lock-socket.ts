/** The Unix sockets of the data directory lock: listening, probing, and reaching a deep directory. */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The longest socket path every platform binds (Linux takes 107 bytes, macOS 103). */
const SOCKET_PATH_MAX = 103;

/** Listens on a socket that answers every connection with this process's pid, without keeping the process alive. */
export function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on('error', () => {}); // a prober that hangs up early is no concern of the server's
      socket.unref();
      socket.end(String(process.pid));
    });
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      server.unref();
      resolve(server);
    });
  });
}

/** What connecting to a lock socket found. */
export type Probe = { held: true; pid: number | null } | { held: false; gone: boolean };

/** Connects to a lock socket: held (and the holder's pid, if it answers in time), or not held (gone: no such file). */
export function probe(path: string): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let connected = false;
    let answer = '';
    const held = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ held: true, pid: /^\d+$/.test(answer) ? Number(answer) : null });
    };
    const timer = setTimeout(held, 1000);
    socket.on('connect', () => (connected = true));
    socket.on('data', (d) => (answer += d));
    socket.on('end', held);
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (connected) return held();
      clearTimeout(timer);
      socket.destroy();
      // Connecting to a socket file nobody listens on (or to an older version's pid file) is refused.
      if (err.code === 'ECONNREFUSED') resolve({ held: false, gone: false });
      else if (err.code === 'ENOENT') resolve({ held: false, gone: true });
      else if (err.code === 'EAGAIN') resolve({ held: true, pid: null }); // its backlog is full: very much alive
      else reject(err);
    });
  });
}

/**
 * A path to `real` short enough for a socket address. Unix socket paths are limited to about 100
 * bytes, so a deep data directory is reached through a symlink in a fresh private temp directory:
 * the socket file itself still lives in the data directory, where every server finds it, and the
 * symlink is removed as soon as the socket is bound.
 */
export function shortPathTo(real: string, longestName: string): { base: string; cleanup: () => void } {
  if (Buffer.byteLength(join(real, longestName)) <= SOCKET_PATH_MAX) return { base: real, cleanup: () => {} };
  for (const root of [tmpdir(), '/tmp']) {
    const short = mkdtempSync(join(root, 'shortlink-lock-'));
    const base = join(short, 'd');
    if (Buffer.byteLength(join(base, longestName)) > SOCKET_PATH_MAX) {
      rmSync(short, { recursive: true, force: true });
      continue;
    }
    symlinkSync(real, base);
    return { base, cleanup: () => rmSync(short, { recursive: true, force: true }) };
  }
  throw new Error(`No short enough path to ${real} for its lock socket.`);
}
