import { allOf } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';
import { buildDemo } from '../src/demo/build.ts';
import { demoEnv, startDemo } from '../src/demo/start.ts';
import { silentLogger } from '../src/log.ts';
import { runCli } from './process-helpers.ts';

const NOW = Date.parse('2026-03-15T12:30:00Z');

test('the demo: every list has something, links have clicks, QR codes scans, websites statistics, the stats page shows them', async () => {
  const lines: string[] = [];
  const demo = await startDemo(loadConfig(demoEnv({ PORT: '0', LOG_LEVEL: 'silent' })), { log: silentLogger, print: (l) => lines.push(l), now: NOW });
  try {
    assert.equal(demo.config.dataDir, ':memory:');
    assert.equal(demo.config.host, '127.0.0.1');
    assert.ok(lines.some((l) => l.includes(`API key: ${demo.apikey}`)), 'the key is printed');
    const get = async (path: string) => {
      const res = await fetch(demo.url + path, { headers: { authorization: `Bearer ${demo.apikey}` } });
      assert.equal(res.status, 200, path);
      return res.json();
    };
    // any: each list keeps its items under its own key; the test reads that key and asserts on it
    const lists: [string, (b: any) => unknown[]][] = [
      ['/api/urls?limit=50', (b) => b.data.urls],
      ['/api/qr', (b) => b.data.qrs],
      ['/api/campaigns', (b) => b.data.campaigns],
      ['/api/channels', (b) => b.data.channels],
      ['/api/pixels', (b) => b.data.pixels],
      ['/api/domains', (b) => b.data.domains],
      ['/api/overlay', (b) => b.data.cta],
      ['/api/splash', (b) => b.data.splash],
      ['/api/bio', (b) => b.data.bios],
      ['/api/v1/websites', (b) => b.data],
    ];
    for (const [path, items] of lists) assert.ok(items(await get(path)).length >= 1, path);

    const urls = (await get('/api/urls?limit=50')).data.urls as { alias: string; clicks: number; uniqueclicks: number; id: number }[];
    assert.equal(urls.length, 12);
    const spring = urls.find((u) => u.alias === 'spring')!;
    assert.ok(spring.clicks > 500 && spring.uniqueclicks < spring.clicks, `${spring.clicks} clicks, ${spring.uniqueclicks} unique`);
    const detail = (await get(`/api/url/${spring.id}`)).data;
    assert.ok(Object.keys(detail.topCountries).length >= 5 && Object.keys(detail.topReferrers).length >= 5 && Object.keys(detail.topBrowsers).length >= 3 && Object.keys(detail.topOs).length >= 3);
    assert.ok((await get('/api/qr')).data.qrs.some((q: { scans: number }) => q.scans > 0));
    assert.ok((await get('/api/campaigns')).data.campaigns.some((c: { views: number; rotator: unknown }) => c.views > 0 && c.rotator));
    const marketing = (await get('/api/channels')).data.channels.find((c: { name: string }) => c.name === 'Marketing');
    assert.ok((await get(`/api/channel/${marketing.id}`)).data.items.length >= 2);

    const shop = (await get('/api/v1/websites')).data.find((w: { domain: string }) => w.domain === 'acme-shop.com');
    const pages = await get(`/api/v1/stats/${shop.id}?name=page&from=2026-02-14&to=2026-03-15`);
    assert.ok(pages.data.length >= 5 && pages.data[0].count > 100, JSON.stringify(pages.data.slice(0, 2)));
    const page = await fetch(`${demo.url}/stats/acme-shop.com?from=2026-02-14&to=2026-03-15`);
    assert.equal(page.status, 200);
    const html = await page.text();
    // The sources panel opens on named sources (google.com is Google; its Referrers tab has the host).
    for (const text of ['/products/widget', 'Google', 'Chrome']) assert.ok(html.includes(text), text);
    const days = (await allOf(demo.store, 'stats')).filter((s) => s.subject === `website:${shop.id}`).map((s) => s.day);
    assert.equal(new Set(days).size, 30);
    assert.equal(days.sort().at(-1), '2026-03-15');
  } finally {
    await demo.close();
  }
});

test('the demo data is the same for the same time and seed (password hashes aside)', async () => {
  const options = { now: NOW, apikey: 'sk_demo_test_000000000000000', baseUrl: 'http://localhost:3000' };
  const strip = (f: Record<string, unknown>) => JSON.stringify(f, (k, v) => (k === 'password' && typeof v === 'string' && v.startsWith('scrypt$') ? 'hash' : v));
  assert.equal(strip(await buildDemo(options)), strip(await buildDemo(options)));
});

test('demo --help is the CLI help', async () => {
  const r = await runCli(['demo', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /demo +Run an in-memory server full of demo data/);
});
