import { test } from 'node:test';
import assert from 'node:assert/strict';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { liveServer, tempDir, visit } from './live-server.ts';

const WINDOWS_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

// jsqr is a CommonJS bundle whose typings only declare the `default` property.
const jsQR = jsQRModule.default;

// Links answer integer counts (the real product); referrers from social networks count only in socialCount.
// The click from 3.3.3.3 has no country header: the bundled database places it in the United States.
const EXPECTED = {
  clicks: 5,
  uniqueClicks: 4,
  topCountries: { 'United States': 3, Germany: 2 },
  topReferrers: { 'Direct, email and other': 1, 'blog.example.net': 1 },
  topBrowsers: { Chrome: 3, Safari: 2 },
  topOs: { Windows: 2, iOS: 2, Android: 1 },
  socialCount: { facebook: 2, twitter: 1, instagram: 0, linkedin: 0 },
  topSources: { Facebook: 2, 'Direct / None': 1, 'X/Twitter': 1, 'blog.example.net': 1 },
  topRegions: {},
  topCities: {},
  utm: { source: {}, medium: {}, campaign: {}, term: {}, content: {} },
};

test('click statistics are exact, skip bots, and survive a restart', async () => {
  const dir = await tempDir();
  const first = await liveServer(dir, { trustProxy: true });
  const link = (await first.api('POST', '/api/url/add', { url: 'https://example.com/', custom: 'counted' })).body;
  const visits: Record<string, string>[] = [
    { 'x-forwarded-for': '1.1.1.1', 'user-agent': WINDOWS_CHROME, referer: 'https://www.facebook.com/post', 'cf-ipcountry': 'US' },
    { 'x-forwarded-for': '1.1.1.1', 'user-agent': WINDOWS_CHROME, referer: 'https://www.facebook.com/post', 'cf-ipcountry': 'US' },
    { 'x-forwarded-for': '2.2.2.2', 'user-agent': IPHONE, referer: 'https://t.co/abc', 'cf-ipcountry': 'DE' },
    { 'x-forwarded-for': '3.3.3.3', 'user-agent': ANDROID, referer: 'https://blog.example.net/post' },
    { 'x-forwarded-for': '5.5.5.5', 'user-agent': IPHONE, 'cf-ipcountry': 'DE' },
    { 'x-forwarded-for': '4.4.4.4', 'user-agent': GOOGLEBOT, 'cf-ipcountry': 'US' },
  ];
  for (const headers of visits) assert.equal((await visit(`${first.url}/counted`, headers)).status, 302);

  const live = await first.api('GET', `/api/url/${link.id}`);
  assert.deepEqual(live.body.data, EXPECTED);
  assert.deepEqual(Object.keys(live.body.data.topCountries), ['United States', 'Germany'], 'most first');
  assert.deepEqual(Object.keys(live.body.data.topSources), ['Facebook', 'Direct / None', 'X/Twitter', 'blog.example.net'], 'most first, ties by label');
  const list = await first.api('GET', '/api/urls');
  assert.equal(list.body.data.urls[0].clicks, 5);
  assert.equal(list.body.data.urls[0].uniqueclicks, 4);
  await first.close();

  const second = await liveServer(dir);
  try {
    const after = await second.api('GET', `/api/url/${link.id}`);
    assert.deepEqual(after.body.data, EXPECTED);
  } finally {
    await second.close();
  }
});

function decode(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

test('QR images decode to the exact payload for every type; a link QR counts scans', async () => {
  const server = await liveServer();
  const { api, url } = server;
  try {
    const cases: { type: string; data: unknown; payload: (alias: string) => string }[] = [
      { type: 'text', data: 'Hello, QR!', payload: () => 'Hello, QR!' },
      { type: 'link', data: 'https://example.com/menu', payload: (a) => `${server.config.baseUrl}/qr/${a}/scan` },
      { type: 'phone', data: '+1 (555) 010-9999', payload: () => 'tel:+15550109999' },
      { type: 'email', data: { email: 'hi@example.com', subject: 'Hello there', body: 'A&B' }, payload: () => 'mailto:hi@example.com?subject=Hello%20there&body=A%26B' },
      { type: 'sms', data: { phone: '+15550100', message: 'Call me' }, payload: () => 'SMSTO:+15550100:Call me' },
      { type: 'wifi', data: { ssid: 'Cafe;Net', password: 'p:w', encryption: 'WPA' }, payload: () => 'WIFI:T:WPA;S:Cafe\\;Net;P:p\\:w;;' },
      {
        type: 'vcard',
        data: { name: 'Ada Lovelace', phone: '+44 20 0000', email: 'ada@example.com', company: 'Engines, Ltd' },
        payload: () => 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Ada Lovelace;\r\nFN:Ada Lovelace\r\nORG:Engines\\, Ltd\r\nTEL:+44 20 0000\r\nEMAIL:ada@example.com\r\nEND:VCARD',
      },
    ];
    for (const c of cases) {
      const created = await api('POST', '/api/qr/add', { type: c.type, data: c.data, foreground: 'rgb(20,40,120)' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const alias = created.body.link.split('/').pop();
      const res = await visit(`${url}/qr/${alias}?size=400`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/png');
      const png = Buffer.from(await res.arrayBuffer());
      // Drawn at the nearest of the fixed sizes (QR_IMAGE_SIZES).
      assert.equal(PNG.sync.read(png).width, 384);
      assert.equal(decode(png), c.payload(alias), c.type);
      const svg = await visit(`${url}/qr/${alias}?format=svg`);
      assert.match(svg.headers.get('content-type') ?? '', /image\/svg\+xml/);
      assert.match(await svg.text(), /#142878/i);
    }
    const linkQr = (await api('GET', '/api/qr')).body.data.qrs.find((q: { name: string }) => q.name === 'LINK QR code');
    const alias = linkQr.link.split('/').pop();
    const scan = await visit(`${url}/qr/${alias}/scan`, { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1' });
    assert.deepEqual([scan.status, scan.headers.get('location')], [302, 'https://example.com/menu']);
    const after = await api('GET', `/api/qr/${linkQr.id}`);
    assert.equal(after.body.details.scans, 1);
    assert.equal(after.body.data.clicks, 1);
    assert.equal((await visit(`${url}/qr/${alias}?size=10`)).status, 400);
    assert.equal((await visit(`${url}/qr/${alias}?format=gif`)).status, 400);
    assert.equal((await visit(`${url}/qr/nope`)).status, 404);
  } finally {
    await server.close();
  }
});

test('HEAD requests are answered like GET and never counted: links, QR scans, the campaign rotator (previewers send them with browser user agents)', async () => {
  const server = await liveServer();
  const { api, url } = server;
  const head = (path: string) => fetch(`${url}${path}`, { method: 'HEAD', redirect: 'manual', headers: { 'user-agent': WINDOWS_CHROME } });
  try {
    const link = (await api('POST', '/api/url/add', { url: 'https://example.com/h', custom: 'probed', status: 'public' })).body;
    for (let i = 0; i < 3; i++) {
      const r = await head('/probed');
      assert.deepEqual([r.status, r.headers.get('location'), await r.text()], [302, 'https://example.com/h', '']);
    }
    assert.equal((await api('GET', `/api/url/${link.id}`)).body.data.clicks, 0);
    assert.equal((await visit(`${url}/probed`, { 'user-agent': WINDOWS_CHROME })).status, 302);
    assert.equal((await api('GET', `/api/url/${link.id}`)).body.data.clicks, 1, 'the GET counts');

    const qr = (await api('POST', '/api/qr/add', { type: 'link', data: 'https://example.com/menu' })).body;
    const alias = qr.link.split('/').pop();
    const probe = await head(`/qr/${alias}/scan`);
    assert.deepEqual([probe.status, probe.headers.get('location')], [302, 'https://example.com/menu']);
    assert.equal((await api('GET', `/api/qr/${qr.id}`)).body.details.scans, 0);

    // The rotator: a HEAD is told whose turn it is without taking it.
    const campaign = (await api('POST', '/api/campaign/add', { name: 'Probe', slug: 'probe' })).body;
    const other = (await api('POST', '/api/url/add', { url: 'https://example.com/other', custom: 'probed-2', status: 'public' })).body;
    for (const l of [link, other]) assert.equal((await api('POST', `/api/campaign/${campaign.id}/assign/${l.id}`)).status, 200);
    const turns = [];
    for (const method of ['HEAD', 'HEAD', 'GET', 'HEAD', 'GET']) {
      const r = method === 'HEAD' ? await head('/r/probe') : await visit(`${url}/r/probe`, { 'user-agent': WINDOWS_CHROME });
      turns.push(`${method} ${r.headers.get('location')}`);
    }
    assert.deepEqual(turns, ['HEAD https://example.com/h', 'HEAD https://example.com/h', 'GET https://example.com/h', 'HEAD https://example.com/other', 'GET https://example.com/other']);
    const views = (await api('GET', '/api/campaigns')).body.data.campaigns.find((c: { id: number }) => c.id === campaign.id).views;
    assert.equal(views, 2);
    assert.equal((await api('GET', `/api/url/${link.id}`)).body.data.clicks, 2);
  } finally {
    await server.close();
  }
});
