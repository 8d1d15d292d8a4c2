import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed: `{id, type, created, data}`. */
  event: { id: string; type: string; created: string; data: Record<string, any> }; // any: each test reads the fields of its event type
}

/** How the receiver answers one request: a status (default 200), a body, headers, a delay, or never. */
export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Never answer (until the receiver closes). */
  hang?: boolean;
  /** Answer once this settles (then after `delayMs`). */
  after?: Promise<unknown>;
}

/** A webhook receiver on 127.0.0.1 that keeps every request and answers as told. */
export interface Receiver {
  url: string;
  received: Received[];
  /** How the next requests are answered (`n`: how many came before, from 0). */
  answer: (r: Received, n: number) => Answer;
  /** Connections accepted so far, and how many of them are open now. */
  connections: number;
  open: number;
  close(): Promise<void>;
}

/** Starts a receiver; by default it answers 200 `ok`. */
export async function startReceiver(answer: Receiver['answer'] = () => ({})): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<() => void>();
  const receiver: Receiver = { url: '', received, answer, connections: 0, open: 0, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: Received['event'];
      try {
        event = JSON.parse(body);
      } catch {
        event = { id: '', type: '', created: '', data: {} };
      }
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, event };
      const a = receiver.answer(r, received.length);
      received.push(r);
      if (a.hang) {
        hanging.add(() => res.destroy());
        return;
      }
      const reply = () =>
        setTimeout(() => {
          res.writeHead(a.status ?? 200, { 'content-type': 'text/plain', ...a.headers });
          res.end(a.body ?? 'ok');
        }, a.delayMs ?? 0);
      if (a.after) void a.after.then(reply, reply);
      else reply();
    });
  });
  server.on('connection', (socket) => {
    receiver.connections++;
    receiver.open++;
    socket.on('close', () => receiver.open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const end of hanging) end();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/**
 * What a receiver does with `X-Signature` (the documented check, written here independently of the
 * server's code): v1 is the hex HMAC-SHA256 of "<t>.<body>" with the secret, and t is within five
 * minutes of the receiver's clock.
 */
export function receiverAccepts(r: Received, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const header = String(r.headers['x-signature'] ?? '');
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  if (Math.abs(nowSeconds - Number(m[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${r.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}
