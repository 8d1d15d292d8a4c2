import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { liveServer } from './live-server.ts';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const WINDOWS_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';

/** A raw HTTP GET/POST with any headers (fetch cannot set Host), not following redirects. */
function raw(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

test('redirects over real HTTP', async (t) => {
  const server = await liveServer();
  const { api, url } = server;
  t.after(() => server.close());
  const add = async (body: Record<string, unknown>) => {
    const r = await api('POST', '/api/url/add', body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { id: number; shorturl: string };
  };

  await t.test('a plain link answers 302 with Location, no caching, and appended parameters', async () => {
    await add({ url: 'https://example.com/landing?x=1', custom: 'plain', parameters: [{ name: 'utm_source', value: 'qr code' }] });
    const r = await raw(`${url}/plain`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, 'https://example.com/landing?x=1&utm_source=qr+code');
    assert.equal(r.headers['cache-control'], 'no-store');
    // The empty body is said as such: not a chunked answer whose terminating chunk the client reads too.
    assert.equal(r.headers['content-length'], '0');
    assert.equal(r.headers['transfer-encoding'], undefined);
  });

  await t.test('targeting: country header, then device, then language, then the long URL', async () => {
    await add({
      url: 'https://example.com/default',
      custom: 'targeted',
      geotarget: [{ location: 'de', link: 'https://example.de/' }],
      devicetarget: [{ device: 'iphone', link: 'https://apps.apple.com/app' }],
      languagetarget: [{ language: 'fr', link: 'https://example.fr/' }],
    });
    const cases: [Record<string, string>, string][] = [
      [{ 'cf-ipcountry': 'DE', 'user-agent': IPHONE }, 'https://example.de/'],
      [{ 'cf-ipcountry': 'US', 'user-agent': IPHONE }, 'https://apps.apple.com/app'],
      [{ 'user-agent': WINDOWS_CHROME, 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' }, 'https://example.fr/'],
      [{ 'user-agent': WINDOWS_CHROME, 'accept-language': 'en-US' }, 'https://example.com/default'],
    ];
    for (const [headers, location] of cases) {
      const r = await raw(`${url}/targeted`, { headers });
      assert.equal(r.headers.location, location, JSON.stringify(headers));
    }
  });

  await t.test('deep links send Apple and Android visitors to their store', async () => {
    await add({ url: 'https://example.com/app', custom: 'get-app', deeplink: { apple: 'https://apps.apple.com/x', google: 'https://play.google.com/x' } });
    assert.equal((await raw(`${url}/get-app`, { headers: { 'user-agent': IPHONE } })).headers.location, 'https://apps.apple.com/x');
    assert.equal((await raw(`${url}/get-app`, { headers: { 'user-agent': ANDROID } })).headers.location, 'https://play.google.com/x');
    assert.equal((await raw(`${url}/get-app`, { headers: { 'user-agent': WINDOWS_CHROME } })).headers.location, 'https://example.com/app');
  });

  await t.test('a password-protected link: form, wrong password, right password, signed cookie; no click before', async () => {
    const { id } = await add({ url: 'https://example.com/secret', custom: 'secret', password: 'open sesame' });
    const form = await raw(`${url}/secret`);
    assert.equal(form.status, 200);
    assert.match(form.text, /<form method="post" action="\/secret">/);
    const wrong = await raw(`${url}/secret`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=nope' });
    assert.equal(wrong.status, 403);
    assert.match(wrong.text, /Wrong password/);
    assert.equal(wrong.headers['set-cookie'], undefined);
    assert.equal((await api('GET', `/api/url/${id}`)).body.data.clicks, 0);
    const right = await raw(`${url}/secret`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=open+sesame' });
    // Not a redirect: the form's CSP (form-action 'self') would make a browser refuse the link's redirect to its target.
    assert.equal(right.status, 200);
    assert.equal(right.headers.location, undefined);
    assert.match(right.text, /<meta http-equiv="refresh" content="0;url=\/secret">/, 'the page opens the link itself');
    const cookie = String(right.headers['set-cookie']);
    assert.match(cookie, new RegExp(`^lp_${id}=\\d+\\.[\\w-]+; Max-Age=86400; Path=/secret; HttpOnly; SameSite=Strict`));
    assert.ok(!cookie.includes('sesame'));
    const through = await raw(`${url}/secret`, { headers: { cookie: cookie.split(';')[0]! } });
    assert.equal(through.status, 302);
    assert.equal(through.headers.location, 'https://example.com/secret');
    const forged = await raw(`${url}/secret`, { headers: { cookie: `lp_${id}=9999999999.AAAA` } });
    assert.equal(forged.status, 200, 'a forged cookie shows the form again');
    assert.equal((await api('GET', `/api/url/${id}`)).body.data.clicks, 1);
  });

  await t.test('an expired link answers 410 with a page; an unknown alias an HTML 404', async () => {
    const { id } = await add({ url: 'https://example.com/old', custom: 'old', expiry: '2099-01-01 00:00:00' });
    await server.store.transaction((tx) => tx.update('links', id, { expiry: '2000-01-01 00:00:00' }));
    const gone = await raw(`${url}/old`);
    assert.equal(gone.status, 410);
    assert.match(gone.text, /expired/);
    const missing = await raw(`${url}/no-such-alias`);
    assert.equal(missing.status, 404);
    assert.match(String(missing.headers['content-type']), /text\/html/);
    assert.match(missing.text, /Link not found/);
  });

  await t.test('frame, splash and overlay pages escape every user value', async () => {
    const evil = 'https://example.com/"><script>alert(1)</script>';
    await add({ url: evil, custom: 'framed', type: 'frame', metatitle: '<b>bold</b>' });
    const frame = await raw(`${url}/framed`);
    assert.equal(frame.status, 200);
    // Stored as sent, escaped where a page shows it.
    assert.ok(frame.text.includes('<iframe src="https://example.com/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'), frame.text);
    assert.ok(!frame.text.includes('<script>alert(1)'));
    assert.ok(!frame.text.includes('<b>bold</b>') && frame.text.includes('&lt;b&gt;bold&lt;/b&gt;'));
    const splash = await api('POST', '/api/splash/add', { name: 'S', title: 'Wait <here>', text: 'Hi', countdown: 3 });
    await add({ url: 'https://example.com/s', custom: 'splashed', type: String(splash.body.id) });
    const page = await raw(`${url}/splashed`);
    assert.match(page.text, /<meta http-equiv="refresh" content="3;url=https:\/\/example.com\/s">/);
    assert.match(page.text, /Wait &lt;here&gt;/);
    await add({ url: 'https://example.com/d', custom: 'defsplash', type: 'splash' });
    assert.match((await raw(`${url}/defsplash`)).text, /content="5;url=https:\/\/example.com\/d"/);
    const overlay = await api('POST', '/api/overlay/add', { type: 'message', name: 'O', message: 'Buy <now>', buttontext: 'Go', buttonlink: 'https://shop.example.com/' });
    await add({ url: 'https://example.com/o', custom: 'overlaid', type: `overlay-${overlay.body.id}` });
    const o = await raw(`${url}/overlaid`);
    assert.match(o.text, /Buy &lt;now&gt;/);
    assert.match(o.text, /href="https:\/\/shop.example.com\/"/);
  });

  await t.test('links with pixels go through an interstitial that fires them', async () => {
    const pixel = await api('POST', '/api/pixel/add', { type: 'fbpixel', name: 'FB', tag: '12345"&' });
    await add({ url: 'https://example.com/p', custom: 'pixeled', pixels: [pixel.body.id] });
    const r = await raw(`${url}/pixeled`);
    assert.equal(r.status, 200);
    assert.match(r.text, /<img src="https:\/\/www.facebook.com\/tr\?id=12345%22%26&amp;ev=PageView&amp;noscript=1"/);
    assert.match(r.text, /location.replace\("https:\/\/example.com\/p"\)/);
  });

  await t.test('branded domains: aliases on their Host, redirectroot and redirect404', async () => {
    const domain = await api('POST', '/api/domain/add', { domain: 'https://go.brand.test', redirectroot: 'https://brand.test/', redirect404: 'https://brand.test/404' });
    assert.equal(domain.status, 200, JSON.stringify(domain.body));
    const link = await add({ url: 'https://brand.test/sale', custom: 'sale', domain: 'https://go.brand.test' });
    assert.equal(link.shorturl, 'https://go.brand.test/sale');
    const host = { host: 'go.brand.test' };
    assert.equal((await raw(`${url}/sale`, { headers: host })).headers.location, 'https://brand.test/sale');
    assert.equal((await raw(`${url}/sale`)).status, 404, 'the alias lives on the branded domain only');
    // A fully qualified Host (a trailing dot, any case) names the same domain.
    for (const fqdn of ['go.brand.test.', 'GO.Brand.Test.']) assert.equal((await raw(`${url}/sale`, { headers: { host: fqdn } })).headers.location, 'https://brand.test/sale', fqdn);
    const root = await raw(`${url}/`, { headers: host });
    assert.deepEqual([root.status, root.headers.location], [302, 'https://brand.test/']);
    const lost = await raw(`${url}/nothing`, { headers: host });
    assert.deepEqual([lost.status, lost.headers.location], [302, 'https://brand.test/404']);
  });

  await t.test('campaign rotator takes the links in turn and counts views; the public page lists them', async () => {
    const campaign = await api('POST', '/api/campaign/add', { name: 'Spring', slug: 'spring', public: true });
    assert.equal(campaign.status, 200, JSON.stringify(campaign.body));
    // Public: only public links are listed on the campaign's page (a new link is private by default).
    const a = await add({ url: 'https://example.com/a', custom: 'rot-a', status: 'public' });
    const b = await add({ url: 'https://example.com/b', custom: 'rot-b', status: 'public' });
    for (const l of [a, b]) assert.equal((await api('POST', `/api/campaign/${campaign.body.id}/assign/${l.id}`)).status, 200);
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((await raw(`${url}/r/spring`, { headers: { 'user-agent': WINDOWS_CHROME } })).headers.location);
    assert.deepEqual(seen, ['https://example.com/a', 'https://example.com/b', 'https://example.com/a', 'https://example.com/b']);
    assert.equal((await api('GET', `/api/url/${a.id}`)).body.data.clicks, 2);
    const list = await api('GET', '/api/campaigns');
    assert.equal(list.body.data.campaigns.find((c: { id: number }) => c.id === campaign.body.id).views, 4);
    const page = await raw(campaign.body.list.replace(/^http:\/\/localhost:\d+/, url));
    assert.equal(page.status, 200);
    assert.match(page.text, /rot-a/);
    await api('PUT', `/api/campaign/${campaign.body.id}/update`, { name: 'Spring', public: false });
    // Made private: its page says so, and lists nothing.
    const closed = await raw(campaign.body.list.replace(/^http:\/\/localhost:\d+/, url));
    assert.equal(closed.status, 403);
    assert.match(closed.text, /This campaign is private/);
    assert.doesNotMatch(closed.text, /rot-a/);
    await api('POST', '/api/campaign/add', { name: 'Empty', slug: 'empty' });
    assert.equal((await raw(`${url}/r/empty`)).status, 404);
  });

  await t.test('REDIRECT_STATUS chooses the status', async () => {
    const other = await liveServer(':memory:', { redirectStatus: 301 });
    try {
      await other.api('POST', '/api/url/add', { url: 'https://example.com/', custom: 'perm' });
      assert.equal((await raw(`${other.url}/perm`)).status, 301);
    } finally {
      await other.close();
    }
  });
});
