/** The baseline: a bare node:http server answering a small JSON body on PORT (started by bench/run.ts). */
import { createServer } from 'node:http';

const body = JSON.stringify({ error: 0, data: { id: 1, name: 'baseline', date: '2026-01-01 00:00:00' } });

// Reading the environment here is fine: this is a benchmark fixture, not part of the server.
createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');

// Exit normally on SIGTERM, so that `--cpu-prof` writes its profile.
process.once('SIGTERM', () => process.exit(0));
