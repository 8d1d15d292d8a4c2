import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApiDocument } from '../src/openapi/document.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { ownedBy, testApp } from './helpers.ts';
import type { Call, Reply } from './helpers.ts';
import { Contract, operationsOf } from './openapi-world.ts';

// Issue 16: a client written against the real products replays its usual calls, unchanged, in both
// error-status modes. Every answer must be what that client expects, and match the OpenAPI
// document the server publishes for its mode.
for (const mode of ['real', 200] as const) {
  test(`a real product's clients work unchanged with ERROR_STATUS=${mode}`, async () => {
    const t = await testApp({ errorStatus: mode, rateLimit: 1000, analyticsRateLimit: 10000 });
    const doc = openApiDocument({ resources: RESOURCES, config: t.config });
    const contract = new Contract(doc);
    const ops = operationsOf(doc).map((o) => ({ ...o, re: new RegExp(`^${o.path.replace(/\{\w+\}/g, '[^/]+')}$`), params: (o.path.match(/\{/g) ?? []).length }));
    const user = await t.makeUser('client');

    /** One call, checked against the document; the most literal documented path wins (`/api/url/add` before `/api/url/{id}`). */
    const send = async (method: string, url: string, opts: Call): Promise<Reply> => {
      const path = url.split('?')[0]!;
      const op = ops.filter((o) => o.method === method.toLowerCase() && o.re.test(path)).sort((a, b) => a.params - b.params)[0];
      assert.ok(op, `documented: ${method} ${path}`);
      const reply = await t.call(method, url, opts);
      contract.check(op, reply, `replay, ERROR_STATUS=${mode}`);
      return reply;
    };
    // The vendor's PHP wrapper: `Token` auth, JSON bodies, "empty means absent" values.
    const php = (method: string, url: string, body?: unknown) => send(method, url, { key: null, headers: { authorization: `Token ${user.key}` }, body });
    // A link-API error: HTTP 200 under ERROR_STATUS=200 (what the real product's clients expect), else the real status.
    const failed = (r: Reply, real: number, message: RegExp) => {
      assert.equal(r.status, mode === 200 ? 200 : real, r.text);
      assert.equal(r.body.error, 1);
      assert.match(r.body.message, message);
    };

    const account = await php('GET', '/api/account');
    assert.deepEqual([account.status, account.body.error, account.body.data.email], [200, 0, 'user_client@example.com']);

    const created = await php('POST', '/api/url/add', {
      url: 'https://example.com/landing',
      custom: 'promo-2026',
      domain: false,
      password: '',
      expiry: null,
      metatitle: null,
      pixels: false,
      geotarget: [{ location: 'Canada', link: 'https://example.ca/' }],
      devicetarget: [{ device: 'iPhone', link: 'https://example.com/ios' }],
      parameters: [{ name: 'utm_source', value: 'php' }, 'junk'],
    });
    assert.deepEqual([created.status, created.body.error, created.body.shorturl], [200, 0, 'http://sho.rt/promo-2026']);
    const id = created.body.id as number;

    failed(await php('POST', '/api/url/add', { url: 'not a url', domain: false }), 400, /valid URL/);
    failed(await php('POST', '/api/url/add', { url: 'example.com/landing' }), 400, /must start with http:\/\/ or https:\/\//);
    failed(await php('POST', '/api/url/add', { url: false }), 400, /url/);
    assert.equal((await ownedBy(t.store, 'links', user.id)).length, 1, 'the refused links were not stored');

    const list = await php('GET', '/api/urls?limit=abc&page=1&order=newest');
    assert.deepEqual([list.status, list.body.error, list.body.data.perpage, list.body.data.urls.map((u: { id: number }) => u.id)], [200, '0', 15, [id]]);
    // Clients fetch everything 500 or 1,000 at a time.
    const all = await php('GET', '/api/urls?limit=1000&page=1');
    assert.deepEqual([all.status, all.body.data.perpage, all.body.data.urls.length], [200, 1000, 1]);
    const bare = await php('POST', '/api/url/add', { url: 'https://example.com', custom: 'bare-host' });
    assert.equal((await php('GET', `/api/url/${bare.body.id}`)).body.details.longurl, 'https://example.com', 'a URL comes back as it was sent');
    assert.deepEqual((await php('DELETE', `/api/url/${bare.body.id}/delete`)).body.error, 0);

    const one = await php('GET', `/api/url/${id}`);
    assert.deepEqual([one.status, one.body.error, one.body.details.alias], [200, 0, 'promo-2026']);
    failed(await php('GET', '/api/url/999999'), 404, /Link does not exist/);

    const updated = await php('PUT', `/api/url/${id}/update`, { url: 'https://example.com/landing-v2', custom: '', domain: false });
    assert.deepEqual([updated.status, updated.body.error, updated.body.shorturl], [200, 0, 'http://sho.rt/promo-2026']);
    const [stored] = await ownedBy(t.store, 'links', user.id);
    // The real product rebuilds a link from the update: targets and parameters not sent again are gone.
    assert.deepEqual([stored?.url, stored?.alias, stored?.parameters, stored?.geotarget], ['https://example.com/landing-v2', 'promo-2026', undefined, undefined]);

    const deleted = await php('DELETE', `/api/url/${id}/delete`);
    assert.deepEqual([deleted.status, deleted.body.error], [200, 0]);
    failed(await php('GET', `/api/url/${id}`), 404, /Link does not exist/);
    failed(await send('GET', '/api/urls', { key: null, headers: { authorization: 'Token sk_not_the_key_000000000000' } }), 401, /valid API key/);
    assert.deepEqual(await ownedBy(t.store, 'links', user.id), []);

    // QR codes, with data in the real product's keys.
    const qr = await php('POST', '/api/qr/add', { type: 'wifi', data: { ssid: 'Cafe', pass: 'secret-pass', encryption: 'wpa' }, background: 'rgb(255,255,255)', logo: false });
    assert.deepEqual([qr.status, qr.body.error, typeof qr.body.id], [200, 0, 'number'], qr.text);
    failed(await php('POST', '/api/qr/add', { type: 'vcard', data: { fname: 'Ada', twitter: 'not a url' } }), 400, /twitter/);
    const sms = await php('POST', '/api/qr/add', { type: 'sms', data: '+15550100' });
    assert.deepEqual([sms.status, sms.body.error], [200, 0], sms.text);
    assert.deepEqual((await php('DELETE', `/api/qr/${sms.body.id}/delete`)).body.error, 0);
    const qrs = await php('GET', '/api/qr?limit=x');
    assert.deepEqual([qrs.status, qrs.body.data.qrs.map((q: { id: number }) => q.id)], [200, [qr.body.id]]);
    const oneQr = await php('GET', `/api/qr/${qr.body.id}`);
    assert.deepEqual([oneQr.status, oneQr.body.details.id, oneQr.body.data.topCountries], [200, qr.body.id, {}]);
    const qrUpdated = await php('PUT', `/api/qr/${qr.body.id}/update`, { type: 'email', data: 'hello@example.com', foreground: 'rgb(0,0,0)' });
    assert.deepEqual([qrUpdated.status, qrUpdated.body], [200, { error: 0, message: 'QR has been updated successfully.' }]);
    const [storedQr] = await ownedBy(t.store, 'qrs', user.id);
    assert.deepEqual([storedQr?.type, storedQr?.data], ['email', { email: 'hello@example.com' }]);
    assert.deepEqual((await php('DELETE', `/api/qr/${qr.body.id}/delete`)).body, { error: 0, message: 'QR has been deleted successfully.' });
    failed(await php('GET', `/api/qr/${qr.body.id}`), 404, /QR does not exist/);
    assert.deepEqual(await ownedBy(t.store, 'qrs', user.id), []);

    // Files: a raw upload, the list, the download, a refused type, the delete.
    const upload = (name: string, raw: string, password = '') =>
      send('POST', `/api/files/upload/${name}?name=Notes&password=${password}`, { key: null, headers: { authorization: `Token ${user.key}`, 'content-type': 'application/octet-stream' }, raw });
    const file = await upload('notes.txt', 'hello, world\n');
    assert.deepEqual([file.status, file.body.error, typeof file.body.id], [200, 0, 'number'], file.text);
    failed(await upload('page.html', '<!doctype html><script>alert(1)</script>'), 415, /type/i);
    const files = await php('GET', '/api/files?limit=x');
    // Its clients read the page fields and `list` at the top level, as the real product's files list has them.
    assert.deepEqual([files.status, files.body.error, files.body.result, files.body.data, files.body.list.map((f: { id: number; name: string; downloads: number }) => [f.id, f.name, f.downloads])], [200, 0, 1, undefined, [[file.body.id, 'Notes', 0]]]);
    const got = await t.call('GET', new URL(file.body.shorturl).pathname, { key: null });
    assert.deepEqual([got.status, got.text, got.headers.get('x-content-type-options')], [200, 'hello, world\n', 'nosniff']);
    assert.deepEqual((await php('DELETE', `/api/files/${file.body.id}/delete`)).body.error, 0);
    const locked = await upload('locked.txt', 'for your eyes\n', 'hunter2');
    assert.deepEqual([locked.status, locked.body.error], [200, 0], locked.text);
    const asked = await t.call('GET', new URL(locked.body.shorturl).pathname, { key: null });
    assert.deepEqual([asked.status, /This file is protected/.test(asked.text)], [200, true], 'the download asks for the password');
    assert.deepEqual((await php('DELETE', `/api/files/${locked.body.id}/delete`)).body.error, 0);
    failed(await php('DELETE', `/api/files/${file.body.id}/delete`), 404, /File does not exist/);
    assert.deepEqual(await ownedBy(t.store, 'files', user.id), []);

    // The analytics product's clients: Bearer, Accept: application/json, form bodies; real statuses in both modes.
    const laravel = (method: string, url: string, form?: Record<string, string>) =>
      send(method, url, { key: user.key, headers: { accept: 'application/json', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, raw: form ? new URLSearchParams(form).toString() : undefined });
    const check = await laravel('GET', '/api/v1/websites?per_page=1');
    assert.deepEqual([check.status, check.body.meta.per_page, check.body.data], [200, 50, []]);
    const me = await laravel('GET', '/api/v1/account');
    assert.deepEqual([me.status, me.body.data.email, me.body.status], [200, 'user_client@example.com', 200]);

    const site = await laravel('POST', '/api/v1/websites', { domain: 'https://www.client.example.com', privacy: '0', exclude_bots: '1' });
    assert.deepEqual([site.status, site.body.data.domain, site.body.data.favorited_at], [201, 'client.example.com', null]);
    const siteId = site.body.data.id as number;
    for (const page of ['/', '/pricing', '/pricing']) {
      const r = await t.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: `https://client.example.com${page}` }), headers: { 'content-type': 'text/plain' } });
      assert.equal(r.status, 202);
    }
    const stats = await laravel('GET', `/api/v1/stats/${siteId}?name=page&from=2026-11-21&to=2026-11-21&per_page=1&sort_by=hits`);
    assert.equal(stats.status, 200);
    assert.deepEqual(stats.body.data, [{ value: '/pricing', count: 2 }, { value: '/', count: 1 }]);
    assert.deepEqual([stats.body.total, stats.body.per_page, stats.body.last_page, stats.body.status], [2, 50, 1, 200]);

    const fav = await laravel('PATCH', `/api/v1/websites/${siteId}`, { favorite: '1' });
    assert.deepEqual([fav.status, fav.body.data.favorite, fav.body.data.favorited_at], [200, true, '2026-11-21T10:00:00.000000Z']);
    const bad = await laravel('POST', '/api/v1/websites', { domain: '' });
    assert.deepEqual([bad.status, bad.body.status], [422, 422], 'the analytics API keeps real statuses');
    const missing = await laravel('GET', '/api/v1/websites/999999');
    assert.deepEqual([missing.status, missing.body], [404, { message: 'Resource not found.', status: 404 }]);
    const gone = await laravel('DELETE', `/api/v1/websites/${siteId}`);
    assert.deepEqual([gone.status, gone.body], [200, { id: siteId, object: 'website', deleted: true, status: 200 }]);
    assert.deepEqual(await ownedBy(t.store, 'websites', user.id), []);

    // Past its rate limit a client gets 429 with Retry-After in both modes: it waits and retries, as it does with the real product.
    const limited = await testApp({ errorStatus: mode, rateLimit: 1 });
    const busy = await limited.makeUser('busy');
    assert.equal((await limited.call('GET', '/api/account', { key: null, headers: { authorization: `Token ${busy.key}` } })).status, 200);
    const again = await limited.call('GET', '/api/account', { key: null, headers: { authorization: `Token ${busy.key}` } });
    assert.deepEqual([again.status, again.body, Number(again.headers.get('retry-after')) > 0], [429, { error: 1, message: 'Too Many API Requests.' }, true]);
    contract.check(ops.find((o) => o.op.operationId === 'getAccount')!, again, `replay, ERROR_STATUS=${mode}`);
  });
}
