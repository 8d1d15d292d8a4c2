import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { pixelTag } from '../src/redirect/pixel-tags.ts';
import { PIXEL_TYPES } from '../src/resources/pixels.ts';

/** What each provider's documented base code must do: load its library from its host, set the id up, count a page view. */
const CASES: Record<(typeof PIXEL_TYPES)[number], { tag: string; loads: string; calls: RegExp[]; noscript?: string }> = {
  gtmpixel: { tag: 'GTM-AB12CD', loads: "'https://www.googletagmanager.com/gtm.js?id='+i+dl", calls: [/\(window,document,'script','dataLayer',"GTM-AB12CD"\)/, /'gtm\.start':new Date\(\)\.getTime\(\),event:'gtm\.js'/], noscript: '<iframe src="https://www.googletagmanager.com/ns.html?id=GTM-AB12CD"' },
  gapixel: { tag: 'G-ABC123XYZ', loads: '<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ"></script>', calls: [/gtag\('js',new Date\(\)\)/, /gtag\('config',"G-ABC123XYZ"\)/] },
  adwordspixel: { tag: 'AW-123456789', loads: '<script async src="https://www.googletagmanager.com/gtag/js?id=AW-123456789"></script>', calls: [/gtag\('config',"AW-123456789"\)/] },
  fbpixel: { tag: '1234567890', loads: "'https://connect.facebook.net/en_US/fbevents.js'", calls: [/fbq\('init',"1234567890"\)/, /fbq\('track','PageView'\)/], noscript: '<img src="https://www.facebook.com/tr?id=1234567890&amp;ev=PageView&amp;noscript=1"' },
  linkedinpixel: { tag: '5551234', loads: '"https://snap.licdn.com/li.lms-analytics/insight.min.js"', calls: [/_linkedin_partner_id="5551234"/, /_linkedin_data_partner_ids\.push\(_linkedin_partner_id\)/], noscript: '<img src="https://px.ads.linkedin.com/collect/?pid=5551234&amp;fmt=gif"' },
  twitterpixel: { tag: 'o1abc', loads: "'https://static.ads-twitter.com/uwt.js'", calls: [/twq\('config',"o1abc"\)/] },
  adrollpixel: { tag: 'ADV123/PIX456', loads: '"https://s.adroll.com/j/"+adroll_adv_id+"/roundtrip.js"', calls: [/adroll_adv_id="ADV123";adroll_pix_id="PIX456"/, /adroll\.track\("pageView"\)/] },
  quorapixel: { tag: 'q0abc', loads: "'https://a.quora.com/qevents.js'", calls: [/qp\('init',"q0abc"\)/, /qp\('track','ViewContent'\)/], noscript: '<img src="https://q.quora.com/_/ad/q0abc/pixel?tag=ViewContent&amp;noscript=1"' },
  pinterest: { tag: '2612345678901', loads: '"https://s.pinimg.com/ct/core.js"', calls: [/pintrk\('load',"2612345678901"\)/, /pintrk\('page'\)/], noscript: '<img src="https://ct.pinterest.com/v3/?event=init&amp;tid=2612345678901&amp;noscript=1"' },
  bing: { tag: '343000123', loads: '"https://bat.bing.com/bat.js","uetq"', calls: [/var o=\{ti:"343000123",enableAutoSpaTracking:true\}/, /w\[u\]\.push\("pageLoad"\)/], noscript: '<img src="https://bat.bing.com/action/0?ti=343000123&amp;Ver=2"' },
  snapchat: { tag: 'e0bfc1fc-8a06-48a8-b221-673653f0020e', loads: "'https://sc-static.net/scevent.min.js'", calls: [/snaptr\('init',"e0bfc1fc-8a06-48a8-b221-673653f0020e",\{\}\)/, /snaptr\('track','PAGE_VIEW'\)/] },
  reddit: { tag: 't2_abc123', loads: '"https://www.redditstatic.com/ads/pixel.js"', calls: [/rdt\('init',"t2_abc123"\)/, /rdt\('track','PageVisit'\)/] },
  tiktok: { tag: 'C4ABCDEF', loads: '"https://analytics.tiktok.com/i18n/pixel/events.js"', calls: [/ttq\.load\("C4ABCDEF"\)/, /ttq\.page\(\)/] },
};

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const hostAllowed = (sources: readonly string[] | undefined, host: string) => (sources ?? []).some((s) => s === `https://${host}` || (s.startsWith('https://*.') && host.endsWith(s.slice('https://*'.length))));

test('each pixel type emits its provider\'s documented page-view snippet, and its CSP allows exactly that', async (t) => {
  assert.deepEqual(Object.keys(CASES).sort(), [...PIXEL_TYPES].sort(), 'a case per pixel type');
  for (const type of PIXEL_TYPES) {
    await t.test(type, () => {
      const c = CASES[type];
      const tag = pixelTag(type, c.tag);
      assert.ok(tag);
      assert.ok(tag.html.includes(c.loads), `loads ${c.loads}`);
      for (const call of c.calls) assert.match(tag.html, call);
      if (c.noscript) assert.ok(tag.html.includes(`<noscript>${c.noscript}`), `noscript beacon ${c.noscript}`);
      const inline = [...tag.html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
      assert.equal(inline.length, 1, 'one inline script');
      assert.deepEqual(tag.csp['script-src']?.filter((s) => s.startsWith("'sha256-")), [hashOf(inline[0]!)], 'allowed by its hash, nothing else inline');
      for (const [, url] of [...tag.html.matchAll(/https:\/\/([a-z0-9.-]+)\//g)].map((m) => [m[0], m[1]!])) {
        const allowed = hostAllowed(tag.csp['script-src'], url!) || hostAllowed(tag.csp['img-src'], url!) || hostAllowed(tag.csp['frame-src'], url!);
        assert.ok(allowed, `${url} is allowed by the CSP`);
      }
      const library = /https:\/\/([a-z0-9.-]+)/.exec(c.loads)![1]!;
      assert.ok(hostAllowed(tag.csp['script-src'], library), `the library's host ${library} is in script-src`);
    });
  }
});

test('a pixel tag cannot break out of its snippet, and an unknown type emits nothing', () => {
  const hostile = `x"</script><script>alert(1)</script>'&<img src=x onerror=alert(2)>`;
  for (const type of PIXEL_TYPES) {
    const tag = pixelTag(type, hostile)!;
    assert.equal((tag.html.match(/<script\b/g) ?? []).length, (tag.html.match(/<\/script>/g) ?? []).length, type);
    assert.ok(!tag.html.includes('alert(1)</script>') && !tag.html.includes('<img src=x'), `${type}: the tag stays data`);
    assert.ok(!/<script>[^<]*<\/script><script>alert/.test(tag.html), type);
  }
  assert.equal(pixelTag('myspace', 'X'), null);
});
