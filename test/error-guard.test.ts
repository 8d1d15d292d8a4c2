import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { withErrorGuard } from '../src/http/error-guard.ts';
import { headerSafeLocation } from '../src/http/location.ts';
import { createLogger } from '../src/log.ts';

test('headerSafeLocation keeps printable ASCII and percent-encodes everything else', () => {
  const cases: [string, string][] = [
    ['https://example.com/a?b=c#d', 'https://example.com/a?b=c#d'],
    ['https://example.com/a\u0001b', 'https://example.com/a%01b'],
    ['https://example.com/\r\nSet-Cookie: x=1', 'https://example.com/%0D%0ASet-Cookie:%20x=1'],
    ['/p/\u0000\u007f', '/p/%00%7F'],
    ['/é😀', '/%C3%A9%F0%9F%98%80'],
    ['/lone\ud800', '/lone%EF%BF%BD'],
    // A URL the API took, with more than ASCII: the URL parser's form (the host in punycode, which percent-encoding would not give).
    ['https://bücher.example/ü?q=a b', 'https://xn--bcher-kva.example/%C3%BC?q=a%20b'],
    ['HTTPS://Example.com', 'HTTPS://Example.com'],
  ];
  for (const [input, want] of cases) assert.equal(headerSafeLocation(input), want, JSON.stringify(input));
});

test('an error while a response is written is a 500, logged once, and the server keeps serving', async (t) => {
  const app = new Hono();
  // A plain-header Response is written by @hono/node-server outside any handler: Node refuses the value there.
  app.get('/bad-header', () => new Response(null, { status: 302, headers: { Location: 'https://example.com/a\u0001b' } }));
  app.get('/api/bad-header', () => new Response(null, { status: 302, headers: { Location: 'https://example.com/a\u0001b' } }));
  app.get('/api/v1/bad-header', () => new Response(null, { status: 302, headers: { 'X-Test': 'a\u0001b' } }));
  app.get('/ok', (c) => c.text('fine'));
  const lines: string[] = [];
  const server = createServer(withErrorGuard(getRequestListener(app.fetch), createLogger('error', (l) => lines.push(l))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const page = await fetch(`${base}/bad-header`, { redirect: 'manual' });
  assert.equal(page.status, 500);
  assert.match(page.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(await page.text(), 'Internal Server Error');
  assert.equal(page.headers.get('location'), null);

  const linkApi = await fetch(`${base}/api/bad-header`, { redirect: 'manual' });
  assert.equal(linkApi.status, 500);
  assert.deepEqual(await linkApi.json(), { error: 1, message: 'An internal error occurred. Please try again later.' });
  const analytics = await fetch(`${base}/api/v1/bad-header`);
  assert.equal(analytics.status, 500);
  assert.deepEqual(await analytics.json(), { message: 'An internal error occurred. Please try again later.', status: 500 });

  assert.equal((await (await fetch(`${base}/ok`)).text()), 'fine', 'the server still answers');
  assert.equal(lines.length, 3, 'one error line per failed request');
  assert.match(lines[0]!, /ERROR error while writing a response .*"path":"\/bad-header".*ERR_INVALID_CHAR/);
});

test('a listener that throws synchronously is answered with a 500 too', async (t) => {
  const lines: string[] = [];
  const server = createServer(withErrorGuard(() => {
    throw new Error('boom');
  }, createLogger('error', (l) => lines.push(l))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/x`);
  assert.equal(res.status, 500);
  assert.equal((await res.json()).error, 1);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /boom/);
});
