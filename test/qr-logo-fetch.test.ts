import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { MAX_LOGO_BYTES } from '../src/qr/logo.ts';
import { loadLogo } from '../src/qr/logo-decode.ts';
import { isPublicAddress } from '../src/qr/public-address.ts';
import { publicFetch } from '../src/qr/public-fetch.ts';
import type { ResolvedAddress } from '../src/qr/public-fetch.ts';
import { LogoCache } from '../src/qr/safe-logo.ts';
import { testApp } from './helpers.ts';

const png = PNG.sync.write(new PNG({ width: 8, height: 8 }));
const logo = { mime: 'image/png', bytes: png };

test('isPublicAddress refuses this host, private networks and non-unicast ranges, IPv4 inside IPv6 included', async (t) => {
  const cases: [string, boolean][] = [
    ['93.184.216.34', true],
    ['8.8.8.8', true],
    ['2606:4700::6810:84e5', true],
    ['0.0.0.0', false],
    ['10.1.2.3', false],
    ['100.64.0.1', false],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['169.254.169.254', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.0.0.8', false],
    ['192.168.1.1', false],
    ['198.18.0.1', false],
    ['198.19.255.255', false],
    ['198.20.0.1', true],
    ['224.0.0.251', false],
    ['239.255.255.250', false],
    ['240.0.0.1', false],
    ['255.255.255.255', false],
    ['::', false],
    ['::1', false],
    ['::127.0.0.1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::808:808', true],
    ['64:ff9b:1::1', false],
    ['2002:7f00:1::1', false],
    ['2002:808:808::1', true],
    ['2001:db8::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fec0::1', false],
    ['ff02::1', false],
    ['localhost', false],
    ['not an address', false],
  ];
  for (const [ip, expected] of cases) await t.test(ip, () => assert.equal(isPublicAddress(ip), expected));
});

/** A server on `host`, counting connections and requests, answering with `handle`. */
async function serverOn(host: string, port: number, handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen = { connections: 0, requests: [] as { url: string; host: string }[] };
  const server = createServer((req, res) => {
    seen.requests.push({ url: req.url ?? '', host: req.headers.host ?? '' });
    handle(req, res);
  });
  server.on('connection', () => seen.connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, seen, port: (server.address() as AddressInfo).port };
}

async function stop(server: Server) {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

// 127.0.0.1 plays the public internet, 127.0.0.2 the internal network, on the same port so that
// only the address differs.
async function twoServers() {
  for (let attempt = 0; ; attempt++) {
    const pub = await serverOn('127.0.0.1', 0, (req, res) => publicRoutes(req, res, pub.port));
    try {
      const internal = await serverOn('127.0.0.2', pub.port, (_req, res) => res.end(png));
      return { pub, internal };
    } catch (err) {
      await stop(pub.server);
      if (attempt === 5) throw err;
    }
  }
}

function publicRoutes(req: IncomingMessage, res: ServerResponse, port: number) {
  const redirect = (to: string) => {
    res.writeHead(302, { location: to });
    res.end();
  };
  const url = req.url ?? '';
  const hops = /^\/r(\d+)$/.exec(url);
  if (url === '/logo.png') res.end(png);
  else if (hops) redirect(Number(hops[1]) <= 1 ? '/logo.png' : `/r${Number(hops[1]) - 1}`);
  else if (url === '/to-private') redirect(`http://127.0.0.2:${port}/logo.png`);
  else if (url === '/to-private-name') redirect(`http://internal.test:${port}/logo.png`);
  else if (url === '/to-mapped') redirect(`http://[::ffff:127.0.0.2]:${port}/logo.png`);
  else if (url === '/to-file') redirect('file:///etc/passwd');
  else if (url === '/missing') {
    res.writeHead(404, { 'content-type': 'image/png' });
    res.end(png);
  } else if (url === '/moved-nowhere') {
    res.writeHead(302);
    res.end(png);
  }
  else if (url === '/to-public-name') redirect(`http://logo.test:${port}/logo.png`);
  else if (url === '/big') {
    // No Content-Length: only counting the bytes can stop it.
    res.write(png);
    const more = () => {
      while (res.write(Buffer.alloc(64 * 1024))) if (res.destroyed) return;
    };
    res.on('drain', more);
    more();
  } else if (url === '/big-declared') {
    res.writeHead(200, { 'content-length': String(MAX_LOGO_BYTES + 1) });
    res.write(png);
  } else if (url === '/slow-body') {
    res.write(png.subarray(0, 16));
    const drip = setInterval(() => res.write(Buffer.alloc(1)), 50);
    res.on('close', () => clearInterval(drip));
  } else if (/^\/slow-hop\d$/.test(url)) {
    const n = Number(url.slice(-1));
    setTimeout(() => redirect(n === 0 ? '/logo.png' : `/slow-hop${n - 1}`), 150);
  }
  // /silent never answers.
}

test('logo fetching connects only to checked addresses, at every hop, within the limits', { timeout: 30_000 }, async (t) => {
  const { pub, internal } = await twoServers();
  const base = `http://127.0.0.1:${pub.port}`;
  const resolved: string[] = [];
  const rebinds = new Map<string, number>();
  const names: Record<string, (host: string) => string[]> = {
    'logo.test': () => ['127.0.0.1'],
    'internal.test': () => ['127.0.0.2'],
    'mixed.test': () => ['127.0.0.1', '127.0.0.2'],
    // Public the first time it is asked, internal every time after: the rebinding attack.
    'rebind.test': (host) => {
      const n = (rebinds.get(host) ?? 0) + 1;
      rebinds.set(host, n);
      return [n === 1 ? '127.0.0.1' : '127.0.0.2'];
    },
  };
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    resolved.push(host);
    const answer = names[host];
    if (!answer) throw new Error(`ENOTFOUND ${host}`);
    return answer(host).map((address) => ({ address, family: 4 }));
  };
  // The test's "public internet" is 127.0.0.1; everything else keeps the production rule.
  const allow = (address: string) => address === '127.0.0.1' || isPublicAddress(address);
  const fetchLogo = publicFetch({ resolve, allow });
  const load = (url: string, timeoutMs = 2000) => loadLogo(url, fetchLogo, timeoutMs);

  const cases: { name: string; url: string; expected: typeof logo | null; publicRequests: string[] | ((urls: string[]) => boolean); timeoutMs?: number }[] = [
    { name: 'a good logo by name', url: `http://logo.test:${pub.port}/logo.png`, expected: logo, publicRequests: ['/logo.png'] },
    { name: 'a good logo by address', url: `${base}/logo.png`, expected: logo, publicRequests: ['/logo.png'] },
    { name: 'a name resolving to a private address is refused without connecting', url: `http://internal.test:${pub.port}/logo.png`, expected: null, publicRequests: [] },
    { name: 'a private address is refused without connecting', url: `http://127.0.0.2:${pub.port}/logo.png`, expected: null, publicRequests: [] },
    { name: 'a name with one private address among public ones is refused', url: `http://mixed.test:${pub.port}/logo.png`, expected: null, publicRequests: [] },
    { name: 'a redirect to a private address is refused', url: `${base}/to-private`, expected: null, publicRequests: ['/to-private'] },
    { name: 'a redirect to a name resolving to a private address is refused', url: `${base}/to-private-name`, expected: null, publicRequests: ['/to-private-name'] },
    { name: 'a redirect to an IPv4-mapped private address is refused', url: `${base}/to-mapped`, expected: null, publicRequests: ['/to-mapped'] },
    { name: 'a redirect to file: is refused', url: `${base}/to-file`, expected: null, publicRequests: ['/to-file'] },
    { name: 'a logo answering 404 is not used', url: `${base}/missing`, expected: null, publicRequests: ['/missing'] },
    { name: 'a redirect without Location is not used', url: `${base}/moved-nowhere`, expected: null, publicRequests: ['/moved-nowhere'] },
    { name: 'a redirect to a public name is followed', url: `${base}/to-public-name`, expected: logo, publicRequests: ['/to-public-name', '/logo.png'] },
    { name: '3 redirects are followed', url: `${base}/r3`, expected: logo, publicRequests: ['/r3', '/r2', '/r1', '/logo.png'] },
    { name: 'a 4th redirect is refused', url: `${base}/r4`, expected: null, publicRequests: ['/r4', '/r3', '/r2', '/r1'] },
    { name: 'a body over MAX_LOGO_BYTES is refused', url: `${base}/big`, expected: null, publicRequests: ['/big'] },
    { name: 'a declared length over MAX_LOGO_BYTES is refused', url: `${base}/big-declared`, expected: null, publicRequests: ['/big-declared'] },
    { name: 'a server that never answers runs out of time', url: `${base}/silent`, expected: null, publicRequests: ['/silent'], timeoutMs: 300 },
    { name: 'a body that drips runs out of time', url: `${base}/slow-body`, expected: null, publicRequests: ['/slow-body'], timeoutMs: 300 },
    { name: 'the time limit covers every hop together', url: `${base}/slow-hop2`, expected: null, publicRequests: (urls) => urls[0] === '/slow-hop2' && !urls.includes('/logo.png'), timeoutMs: 400 },
    { name: 'slow hops within the limit', url: `${base}/slow-hop2`, expected: logo, publicRequests: ['/slow-hop2', '/slow-hop1', '/slow-hop0', '/logo.png'], timeoutMs: 2000 },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      pub.seen.requests.length = 0;
      internal.seen.connections = 0;
      const started = Date.now();
      assert.deepEqual(await load(c.url, c.timeoutMs), c.expected);
      assert.ok(Date.now() - started < (c.timeoutMs ?? 2000) + 500, `took ${Date.now() - started} ms`);
      // A request still in flight when the time ran out reaches the server a little later.
      await new Promise((r) => setTimeout(r, 200));
      const urls = pub.seen.requests.map((r) => r.url);
      if (typeof c.publicRequests === 'function') assert.ok(c.publicRequests(urls), urls.join(' '));
      else assert.deepEqual(urls, c.publicRequests);
      assert.equal(internal.seen.connections, 0, 'the internal server was never reached');
    });
  }

  await t.test('a rebinding name: the connection goes to the address that was checked, with the name in Host', async () => {
    pub.seen.requests.length = 0;
    internal.seen.connections = 0;
    resolved.length = 0;
    const url = `http://rebind.test:${pub.port}/logo.png`;
    assert.deepEqual(await load(url), logo);
    assert.deepEqual(resolved, ['rebind.test'], 'the name is resolved once');
    assert.deepEqual(pub.seen.requests, [{ url: '/logo.png', host: `rebind.test:${pub.port}` }]);
    assert.equal(internal.seen.connections, 0);
    // Asked again, the name is internal now, and is refused as such.
    assert.equal(await load(url), null);
    assert.equal(internal.seen.connections, 0);
  });

  await t.test('the production path (LogoCache, loadLogo by default) refuses loopback without connecting', async () => {
    pub.seen.requests.length = 0;
    const before = pub.seen.connections;
    assert.equal(await new LogoCache(true).get(`${base}/logo.png`), null);
    assert.equal(await loadLogo(`${base}/logo.png`), null);
    assert.equal(await loadLogo(`http://localhost:${pub.port}/logo.png`), null);
    assert.equal(pub.seen.connections, before);
  });

  await t.test('a QR image whose logo URL is internal still renders, without the server fetching it', async () => {
    internal.seen.connections = 0;
    const { call } = await testApp({ logoFetch: true });
    const created = await call('POST', '/api/qr/add', { body: { type: 'text', data: 'hello', logo: `http://127.0.0.2:${pub.port}/logo.png` } });
    assert.equal(created.status, 200);
    const alias = new URL(created.body.link).pathname.split('/').pop();
    const image = await call('GET', `/qr/${alias}`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.equal(internal.seen.connections, 0);
  });

  await stop(pub.server);
  await stop(internal.server);
});

// The CA must be known when the process starts (NODE_EXTRA_CA_CERTS), so this runs in a child.
const TLS_CHILD = `
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { loadLogo } from ${JSON.stringify(new URL('../src/qr/logo-decode.ts', import.meta.url).href)};
import { publicFetch } from ${JSON.stringify(new URL('../src/qr/public-fetch.ts', import.meta.url).href)};
const png = Buffer.from('${png.toString('base64')}', 'base64');
const seen = [];
const server = createServer({ key: readFileSync(process.argv[2]), cert: readFileSync(process.argv[3]) }, (req, res) => {
  seen.push({ sni: req.socket.servername, host: req.headers.host });
  res.end(png);
});
server.listen(0, '127.0.0.1', async () => {
  const port = server.address().port;
  const fetchLogo = publicFetch({ resolve: async () => [{ address: '127.0.0.1', family: 4 }], allow: (a) => a === '127.0.0.1' });
  const named = await loadLogo('https://logo.test:' + port + '/logo.png', fetchLogo);
  const otherName = await loadLogo('https://other.test:' + port + '/logo.png', fetchLogo);
  console.log(JSON.stringify({ port, named: named && named.bytes.equals(png), otherName, seen }));
  server.close();
});
`;

test('https: the pinned connection still sends the name for SNI and checks the certificate against it', { timeout: 30_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logo-tls-'));
  try {
    const [key, cert, script] = ['key.pem', 'cert.pem', 'child.mjs'].map((f) => join(dir, f)) as [string, string, string];
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=logo.test', '-addext', 'subjectAltName=DNS:logo.test']);
    if (made.error || made.status !== 0) return t.skip('openssl is not available to make a test certificate');
    await writeFile(script, TLS_CHILD);
    const child = spawnSync(process.execPath, ['--import', 'tsx', script, key, cert], { cwd: fileURLToPath(new URL('..', import.meta.url)), env: { ...process.env, NODE_EXTRA_CA_CERTS: cert }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(child.status, 0, child.stderr);
    const out = JSON.parse(child.stdout.trim().split('\n').pop()!);
    // other.test reaches the same server but its certificate is not for that name: refused.
    assert.deepEqual(out, { port: out.port, named: true, otherName: null, seen: [{ sni: 'logo.test', host: `logo.test:${out.port}` }] });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
