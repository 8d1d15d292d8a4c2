/**
 * The baseline: a bare node:http server answering a small JSON body on PORT (started by
 * bench/run.ts). On /list it answers a page of 25 QR entries shaped like GET /api/qr's,
 * stringified per request as any server must: what the list costs with no framework at all.
 */
import { createServer } from 'node:http';

const body = JSON.stringify({ error: 0, data: { id: 1, name: 'baseline', date: '2026-01-01 00:00:00' } });

const entries = Array.from({ length: 25 }, (_, i) => ({ id: 10000 - i, link: `http://127.0.0.1:3000/qr/Ab3dEf${String(i).padStart(2, '0')}`, scans: 0, name: `Bench QR ${i}`, date: '2026-01-01 00:00:00' }));

// Reading the environment here is fine: this is a benchmark fixture, not part of the server.
createServer((req, res) => {
  req.resume();
  const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
  const answer = req.url?.startsWith('/list')
    ? JSON.stringify({ error: '0', data: { result: 10000, perpage: 25, currentpage: page, nextpage: page + 1, maxpage: 400, qrs: entries } })
    : body;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
  res.end(answer);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');

// Exit normally on SIGTERM, so that `--cpu-prof` writes its profile.
process.once('SIGTERM', () => process.exit(0));
