import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OwnershipProofs, TOKEN_FILE_MAX_BYTES } from '../src/ownership/proofs.ts';
import type { ProofFetch, ResolveTxt } from '../src/ownership/proofs.ts';
import { publicFetch } from '../src/qr/public-fetch.ts';
import { FileStore } from '../src/store/file/file-store.ts';

/** How the two proofs read what they find: TXT answers, the token file, and every way either can fail. */

const store = () => FileStore.open({ dir: ':memory:', collections: [] });
const record = { name: '_shortlink.site.example', type: 'TXT' as const, value: 'shortlink-verify=0123456789abcdef0123456789abcdef' };
const file = { url: 'https://site.example/.well-known/shortlink-verify.txt', content: '0123456789abcdef0123456789abcdef' };
const failing = (code: string): ResolveTxt => async () => {
  throw Object.assign(new Error(code), { code });
};

test('checkTxt: the exact value among the records (strings of one record joined); no record is absent; a failing or silent resolver is unreachable', async () => {
  const cases: [string, ResolveTxt, string][] = [
    ['the value', async () => [[record.value]], 'proven'],
    ['split in two strings, among others', async () => [['v=spf1 -all'], [record.value.slice(0, 9), record.value.slice(9)]], 'proven'],
    ['spaces around it', async () => [[` ${record.value}  `]], 'proven'],
    ['another token', async () => [['shortlink-verify=ffffffffffffffffffffffffffffffff']], 'absent'],
    ['the token without its prefix', async () => [[file.content]], 'absent'],
    ['the value as two records', async () => [[record.value.slice(0, 9)], [record.value.slice(9)]], 'absent'],
    ['no such name', failing('ENOTFOUND'), 'absent'],
    ['no TXT record', failing('ENODATA'), 'absent'],
    ['a server failure', failing('ESERVFAIL'), 'unreachable'],
    ['a refused query', failing('EREFUSED'), 'unreachable'],
    ['no answer at all', () => new Promise(() => {}), 'unreachable'],
  ];
  for (const [name, resolveTxt, want] of cases) {
    const proofs = new OwnershipProofs(await store(), { resolveTxt, timeoutMs: 30 });
    assert.equal(await proofs.checkTxt(record), want, name);
  }
});

test('checkFile: a 200 whose body is the token, at most 1 KiB; anything else is absent; a failed or silent fetch is unreachable', async () => {
  const body = (text: string, status = 200): ProofFetch => async () => new Response(text, { status });
  const endless: ProofFetch = async () =>
    new Response(new ReadableStream({ pull: (controller) => controller.enqueue(new TextEncoder().encode(`${file.content}\n`)) }));
  const cases: [string, ProofFetch, string][] = [
    ['the token', body(file.content), 'proven'],
    ['the token and a newline', body(`${file.content}\r\n`), 'proven'],
    ['the token, padded past 1 KiB', body(file.content + ' '.repeat(TOKEN_FILE_MAX_BYTES)), 'absent'],
    ['a body without end', endless, 'absent'],
    ['the TXT value', body(record.value), 'absent'],
    ['the token in a page', body(`<p>${file.content}</p>`), 'absent'],
    ['a 404', body(file.content, 404), 'absent'],
    ['a 500', body(file.content, 500), 'absent'],
    ['a refused address', async () => Promise.reject(new Error('Refused address of site.example')), 'unreachable'],
    ['no answer', () => new Promise(() => {}), 'unreachable'],
    ['headers but no body in time', async () => new Response(new ReadableStream({ pull: () => new Promise(() => {}) })), 'unreachable'],
  ];
  for (const [name, fetch, want] of cases) {
    const proofs = new OwnershipProofs(await store(), { fetch, timeoutMs: 50 });
    assert.equal(await proofs.checkFile(file), want, name);
  }
});

test('the token file is fetched by the checked fetch: never from a private address', async () => {
  // No resolver or fetch injected: the production path. localhost resolves (hosts file) to loopback.
  const proofs = new OwnershipProofs(await store(), { timeoutMs: 2000 });
  assert.equal(await proofs.checkFile({ url: 'https://localhost/.well-known/shortlink-verify.txt', content: file.content }), 'unreachable');
  assert.equal(await proofs.checkFile({ url: 'https://127.0.0.1/.well-known/shortlink-verify.txt', content: file.content }), 'unreachable');
});

test('publicFetch narrowed to some schemes checks every hop: a redirect to another scheme is refused', async () => {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    if (req.url === '/start') res.writeHead(302, { location: 'https://127.0.0.1/elsewhere' }).end();
    else res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const loopback = { resolve: async () => [{ address: '127.0.0.1', family: 4 }], allow: (a: string) => a === '127.0.0.1' };
    const signal = new AbortController().signal;
    const httpOnly = publicFetch({ ...loopback, protocols: ['http:'] });
    assert.equal((await httpOnly(new URL(`http://127.0.0.1:${port}/plain`), { signal })).status, 200);
    await assert.rejects(httpOnly(new URL(`http://127.0.0.1:${port}/start`), { signal }), /Refused scheme https:/);
    const httpsOnly = publicFetch({ ...loopback, protocols: ['https:'] });
    const before = hits;
    await assert.rejects(httpsOnly(new URL(`http://127.0.0.1:${port}/plain`), { signal }), /Refused scheme http:/);
    assert.equal(hits, before, 'refused before connecting');
  } finally {
    server.close();
  }
});
