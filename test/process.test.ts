import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ListenError, listenError } from '../src/server.ts';
import { api, runCli, startProcess } from './process-helpers.ts';

const tmp = () => mkdtemp(join(tmpdir(), 'process-test-'));

// Acknowledged writes surviving SIGKILL, and ids never repeating, are crash.test.ts's (under concurrent
// writes, six kills); a second server refused on a held directory is store-lock.test.ts's (naming the holder).
test('SIGTERM flushes, releases the lock and exits 0', async () => {
  const dir = await tmp();
  const s = await startProcess(dir);
  await api(s.url, 'POST', '/api/pixel/add', { type: 'bing', name: 'kept', tag: 'K' });
  s.child.kill('SIGTERM');
  assert.equal(await s.exit, 0);
  const files = await readdir(dir);
  assert.ok(!files.includes('.lock'));
  const pixels = JSON.parse(await readFile(join(dir, 'pixels.json'), 'utf8'));
  assert.deepEqual(pixels.records.map((p: { name: string }) => p.name), ['kept']);
});

test('a corrupt data file refuses the start, is named, and is left as it was', async () => {
  const dir = await tmp();
  const file = join(dir, 'pixels.json');
  await writeFile(file, '{"collection":"pixels", oops');
  await assert.rejects(startProcess(dir), (err: Error) => err.message.includes('exited with 1') && err.message.includes(file));
  assert.equal(await readFile(file, 'utf8'), '{"collection":"pixels", oops');
});

test('an invalid setting stops the start with exit code 1 and names it', async () => {
  const r = await runCli(['serve'], { PORT: 'eighty', DATA_DIR: ':memory:' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Invalid PORT/);
});

test('a busy port stops the start with one line naming the port, exit code 1, and nothing stored', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as AddressInfo).port;
  try {
    const dir = await tmp();
    const r = await runCli(['serve'], { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dir, ADMIN_API_KEY: '', LOG_LEVEL: 'info' });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `Port ${port} is already in use on 127.0.0.1: stop the other server or set PORT (--port).\n`);
    assert.equal(r.stdout, '');
    assert.deepEqual(await readdir(dir), []);
    const demo = await runCli(['demo', '--port', String(port)], {});
    assert.equal(demo.code, 1);
    assert.equal(demo.stderr, `Port ${port} is already in use on 127.0.0.1: stop the other server or set PORT (--port).\n`);
  } finally {
    holder.close();
  }
});

test('every listen failure a person can fix reads as what to do; others stay as they are', () => {
  const fail = (code: string) => Object.assign(new Error(`listen ${code}`), { code });
  const cases = [
    { code: 'EADDRINUSE', host: '0.0.0.0', message: 'Port 8080 is already in use: stop the other server or set PORT (--port).' },
    { code: 'EADDRINUSE', host: '::1', message: 'Port 8080 is already in use on ::1: stop the other server or set PORT (--port).' },
    { code: 'EACCES', host: '0.0.0.0', message: 'Port 8080 needs privileges this user does not have: use a port above 1023 or set PORT (--port).' },
    { code: 'EADDRNOTAVAIL', host: '192.0.2.1', message: 'HOST 192.0.2.1 is not an address of this machine: set HOST (--host) to one of its addresses, or 0.0.0.0 for all.' },
    { code: 'ENOTFOUND', host: 'no-such-host.invalid', message: 'HOST no-such-host.invalid is not an address of this machine: set HOST (--host) to one of its addresses, or 0.0.0.0 for all.' },
  ];
  for (const c of cases) {
    const err = listenError(fail(c.code), { port: 8080, host: c.host });
    assert.ok(err instanceof ListenError, c.code);
    assert.equal(err.message, c.message);
  }
  const other = fail('EMFILE');
  assert.equal(listenError(other, { port: 8080, host: '0.0.0.0' }), other);
});

test('the first start prints a generated admin key once; it works', async () => {
  const dir = await tmp();
  const s = await startProcess(dir, { ADMIN_API_KEY: '' });
  try {
    const key = /Admin API key: (sk_\S+)/.exec(s.output())?.[1];
    assert.ok(key);
    assert.equal((await api(s.url, 'GET', '/api/account', undefined, key)).status, 200);
  } finally {
    s.child.kill('SIGTERM');
    await s.exit;
  }
});

test('CLI: users:add prints a key, users:list lists without keys, users:rotate-key replaces it', async () => {
  const dir = await tmp();
  const env = { DATA_DIR: dir };
  const add = await runCli(['users:add', '--email', 'cli@example.com', '--admin'], env);
  assert.equal(add.code, 0, add.stderr);
  const key = /API key: (sk_\S+)/.exec(add.stdout)?.[1];
  assert.ok(key);
  const list = await runCli(['users:list'], env);
  assert.match(list.stdout, /cli@example\.com .* admin/);
  assert.ok(!list.stdout.includes(key));
  const rotated = await runCli(['users:rotate-key', '--email', 'cli@example.com'], env);
  const newKey = /API key: (sk_\S+)/.exec(rotated.stdout)?.[1];
  assert.ok(newKey && newKey !== key);
  const dup = await runCli(['users:add', '--email', 'cli@example.com'], env);
  assert.equal(dup.code, 1);
  assert.match(dup.stderr, /already associated/);
  const help = await runCli(['users:add', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--email/);
  const unknown = await runCli(['users:nope']);
  assert.equal(unknown.code, 2);
  const s = await startProcess(dir, { ADMIN_API_KEY: '' });
  try {
    assert.equal((await api(s.url, 'GET', '/api/account', undefined, newKey)).status, 200);
    assert.equal((await api(s.url, 'GET', '/api/account', undefined, key)).status, 401);
  } finally {
    s.child.kill('SIGTERM');
    await s.exit;
  }
});
