import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.ts';

/** The caps and rates one server process holds its connections to (from the settings). */
export interface ConnectionRules {
  /** Open connections at most. */
  maxConnections: number;
  /** Open connections of one client address at most; 0: no cap. */
  maxClientConnections: number;
  /** Milliseconds before a body must have kept up `minBodyRate` (the headers' allowance). */
  bodyGraceMs: number;
  /** Slowest accepted body, bytes per second on average; 0: any. */
  minBodyRate: number;
}

/** A request whose body is still arriving, and the socket's byte count when its body began. */
interface Upload {
  req: IncomingMessage;
  res: ServerResponse;
  since: number;
  bytesAtStart: number;
}

/** How often bodies are checked against the minimum rate. */
const CHECK_MS = 1000;

/**
 * Holds a server's connections to the rules: a client address past its cap is refused at once (the
 * socket closed before anything is read); at the total cap, the oldest connection that is waiting
 * for a request (still sending its headers, or idle between two) is closed to make room, and when
 * none is, the new one is refused at once; a body slower than the minimum rate, past the grace, gets
 * 408 and its connection is closed. `exempt` names peers never capped per address (trusted
 * proxies: every client of theirs shares their address). Returns what stops the body check.
 */
export function guardConnections(server: Server, rules: ConnectionRules, exempt: (address: string) => boolean, log: Logger, now = () => Date.now()): () => void {
  const perClient = new Map<string, number>();
  // Insertion order is age: a connection goes to the end whenever it starts waiting again.
  const waiting = new Set<Socket>();
  let open = 0;
  const uploads = new Set<Upload>();

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const capped = rules.maxClientConnections > 0 && !exempt(address);
    if (capped && (perClient.get(address) ?? 0) >= rules.maxClientConnections) {
      socket.destroy();
      return;
    }
    if (open >= rules.maxConnections) {
      const oldest = waiting.values().next().value;
      if (!oldest) {
        socket.destroy();
        return;
      }
      waiting.delete(oldest);
      oldest.destroy();
    }
    open++;
    if (capped) perClient.set(address, (perClient.get(address) ?? 0) + 1);
    waiting.add(socket);
    socket.once('close', () => {
      open--;
      waiting.delete(socket);
      if (!capped) return;
      const left = (perClient.get(address) ?? 1) - 1;
      if (left === 0) perClient.delete(address);
      else perClient.set(address, left);
    });
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    waiting.delete(socket);
    res.once('finish', () => {
      if (!socket.destroyed) waiting.add(socket);
    });
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (rules.minBodyRate > 0 && hasBody && !req.complete) {
      const upload = { req, res, since: now(), bytesAtStart: socket.bytesRead };
      uploads.add(upload);
      const done = () => uploads.delete(upload);
      req.once('end', done);
      res.once('close', done);
    }
  });

  const timer = setInterval(() => {
    const at = now();
    for (const u of uploads) {
      if (u.req.complete) {
        uploads.delete(u);
        continue;
      }
      const elapsed = at - u.since;
      if (elapsed < rules.bodyGraceMs) continue;
      const rate = ((u.req.socket.bytesRead - u.bytesAtStart) * 1000) / elapsed;
      if (rate >= rules.minBodyRate) continue;
      uploads.delete(u);
      tooSlow(u, log);
    }
  }, CHECK_MS).unref();
  return () => clearInterval(timer);
}

/** Answers 408 to a request whose body came too slowly (unless an answer began) and closes its connection. */
function tooSlow({ req, res }: Upload, log: Logger): void {
  log.debug('request body too slow: connection closed', { method: req.method, path: req.url?.split('?')[0] });
  const socket = req.socket;
  if (res.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: 1, message: 'The request body arrived too slowly.' });
  res.writeHead(408, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body, () => socket.destroy());
  // The handler that waits for the body may still try to answer: it finds the response ended.
  setTimeout(() => socket.destroy(), 1000).unref();
}
