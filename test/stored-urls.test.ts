import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { api, startProcess } from './process-helpers.ts';
import type { ServerProcess } from './process-helpers.ts';

/** What an older version or an import may have stored: a URL with a control character and a header injection. */
const HOSTILE = 'https://example.com/a\u0001b\r\nX-Injected: 1\u007f';

/** A GET over a raw socket, so that whatever the server sends is seen as sent (no client-side parsing of redirects). */
function get(url: string, path: string, host?: string): Promise<{ status: number; location: string | undefined; raw: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/605.1', ...(host ? { host } : {}), 'cf-ipcountry': 'DE' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, raw: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('URLs with control characters stored by other means redirect without stopping the server', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stored-urls-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  let server: ServerProcess = await startProcess(dir);
  const ids: Record<string, number> = {};
  try {
    const { url } = server;
    const made = async (path: string, body: unknown) => {
      const r = await api(url, 'POST', path, body);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.id as number;
    };
    ids.domain = await made('/api/domain/add', { domain: 'https://brand.example.net', redirectroot: 'https://example.com/root', redirect404: 'https://example.com/404' });
    ids.plain = await made('/api/url/add', { url: 'https://example.com/plain', custom: 'plain' });
    ids.params = await made('/api/url/add', { url: 'https://example.com/params', custom: 'params', parameters: [{ name: 'utm_source', value: 'x' }] });
    ids.geo = await made('/api/url/add', { url: 'https://example.com/geo', custom: 'geo', geotarget: [{ location: 'DE', link: 'https://example.de/' }] });
    ids.device = await made('/api/url/add', { url: 'https://example.com/dev', custom: 'dev', devicetarget: [{ device: 'iphone', link: 'https://example.com/ios' }] });
    ids.deep = await made('/api/url/add', { url: 'https://example.com/deep', custom: 'deep', deeplink: { apple: 'https://apps.apple.com/app/1' } });
    ids.campaign = await made('/api/campaign/add', { name: 'Spring', slug: 'spring' });
    ids.rotated = await made('/api/url/add', { url: 'https://example.com/rot', custom: 'rot' });
    assert.equal((await api(url, 'POST', `/api/campaign/${ids.campaign}/assign/${ids.rotated}`)).status, 200);
    const qr = await api(url, 'POST', '/api/qr/add', { type: 'link', data: 'https://example.com/qr' });
    assert.equal(qr.status, 200);
    ids.qr = qr.body.id;
  } finally {
    server.child.kill('SIGTERM');
    await server.exit;
  }

  // As an import or an older version could have left it: every redirect target holds HOSTILE.
  const store = await FileStore.open({ dir, collections: storeSchema(RESOURCES) });
  await store.transaction(async (tx) => {
    await tx.update('domains', ids.domain!, { redirectroot: HOSTILE, redirect404: HOSTILE });
    await tx.update('links', ids.plain!, { url: HOSTILE });
    await tx.update('links', ids.params!, { url: 'not a URL\u0001' });
    await tx.update('links', ids.geo!, { geotarget: [{ location: 'DE', link: HOSTILE }] });
    await tx.update('links', ids.device!, { devicetarget: [{ device: 'iphone', link: HOSTILE }] });
    await tx.update('links', ids.deep!, { deeplink: { apple: HOSTILE } });
    await tx.update('links', ids.rotated!, { url: HOSTILE });
    await tx.update('qrs', ids.qr!, { data: HOSTILE });
  });
  const qrAlias = (await store.get<{ alias: string } & { id: number }>('qrs', ids.qr!))!.alias;
  await store.close();

  server = await startProcess(dir);
  try {
    const paths: [string, string, string?, string?][] = [
      ['link', '/plain'],
      ['a target that is no URL, on a link with parameters', '/params', undefined, 'not%20a%20URL%01'],
      ['geo target', '/geo'],
      ['device target', '/dev'],
      ['deep link', '/deep'],
      ['campaign rotator', '/r/spring'],
      ['QR scan', `/qr/${qrAlias}/scan`],
      ['branded root', '/', 'brand.example.net'],
      ['branded 404', '/no-such-alias', 'brand.example.net'],
    ];
    for (const [what, path, host, location = 'https://example.com/a%01b%0D%0AX-Injected:%201%7F'] of paths) {
      for (let round = 0; round < 2; round++) {
        const r = await get(server.url, path, host);
        assert.ok(r.status === 302 || r.status === 301, `${what}: status ${r.status}`);
        assert.equal(r.location, location, `${what}: the Location is percent-encoded`);
        assert.equal(r.raw['x-injected'], undefined, `${what}: no header was injected`);
      }
    }
    assert.equal((await get(server.url, '/health')).status, 200);
    assert.equal(server.child.exitCode, null, 'the server is still running');
    assert.doesNotMatch(server.output(), /ERR_INVALID_CHAR|unhandled/i);
  } finally {
    server.child.kill('SIGTERM');
    await server.exit;
  }
});
