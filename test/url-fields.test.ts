import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp , allOf } from './helpers.ts';

type Body = Record<string, unknown>;

/** Every request field that holds a URL the server later redirects to or puts into a page: how to send one, and where it is stored. */
const URL_FIELDS: { name: string; path: string; collection: string; body: (u: string) => Body; stored: (r: any) => unknown }[] = [
  { name: 'link url', path: '/api/url/add', collection: 'links', body: (u) => ({ url: u }), stored: (r) => r.url },
  { name: 'link geotarget', path: '/api/url/add', collection: 'links', body: (u) => ({ url: 'https://example.com/g', geotarget: [{ location: 'DE', link: u }] }), stored: (r) => r.geotarget[0].link },
  { name: 'link devicetarget', path: '/api/url/add', collection: 'links', body: (u) => ({ url: 'https://example.com/d', devicetarget: [{ device: 'iphone', link: u }] }), stored: (r) => r.devicetarget[0].link },
  { name: 'link languagetarget', path: '/api/url/add', collection: 'links', body: (u) => ({ url: 'https://example.com/l', languagetarget: [{ language: 'fr', link: u }] }), stored: (r) => r.languagetarget[0].link },
  { name: 'link deeplink apple', path: '/api/url/add', collection: 'links', body: (u) => ({ url: 'https://example.com/a', deeplink: { apple: u } }), stored: (r) => r.deeplink.apple },
  { name: 'link deeplink google', path: '/api/url/add', collection: 'links', body: (u) => ({ url: 'https://example.com/b', deeplink: { google: u } }), stored: (r) => r.deeplink.google },
  { name: 'link metaimage', path: '/api/url/add', collection: 'links', body: (u) => ({ url: 'https://example.com/m', metaimage: u }), stored: (r) => r.metaimage },
  { name: 'QR link data', path: '/api/qr/add', collection: 'qrs', body: (u) => ({ type: 'link', data: u }), stored: (r) => r.data },
  { name: 'QR vCard website', path: '/api/qr/add', collection: 'qrs', body: (u) => ({ type: 'vcard', data: { name: 'Ada', website: u } }), stored: (r) => r.data.website },
  { name: 'domain redirectroot', path: '/api/domain/add', collection: 'domains', body: (u) => ({ domain: 'https://go.example.org', redirectroot: u }), stored: (r) => r.redirectroot },
  { name: 'domain redirect404', path: '/api/domain/add', collection: 'domains', body: (u) => ({ domain: 'https://go.example.org', redirect404: u }), stored: (r) => r.redirect404 },
  { name: 'overlay buttonlink', path: '/api/overlay/add', collection: 'overlays', body: (u) => ({ type: 'message', name: 'O', message: 'Hi', buttontext: 'Go', buttonlink: u }), stored: (r) => r.buttonlink },
  { name: 'splash image', path: '/api/splash/add', collection: 'splash', body: (u) => ({ name: 'S', title: 'T', text: 'x', image: u }), stored: (r) => r.image },
];

const HOSTILE = [
  'https://example.com/a\u0001b',
  'https://example.com/a\r\nSet-Cookie: x=1',
  'https://example.com/a\nb',
  'https://example.com/a\tb',
  'https://example.com/a\u0000b',
  'https://example.com/a\u007fb',
  'https://example.com/\ud800',
  'https://example.com/\udc00x',
  `https://example.com/${'a'.repeat(10_000)}`,
];

// A URL without `http://` or `https://` in front: refused, saying so (stored as given, `https:x.y` would
// be a path of this server to a browser, and `\\` or a missing slash reads differently in other parsers).
const NO_SCHEME = ['example.com', 'www.example.com/page', '//example.com/x', 'ftp://example.com/', 'javascript:alert(1)', 'https:example.com', 'https:/example.com', 'https:\\\\example.com'];

let made = 0;

for (const field of URL_FIELDS) {
  test(`${field.name}: refused with a 400 when it holds a control character, a lone surrogate, is too long or has no http(s):// scheme; stored as sent otherwise`, async () => {
    const { call, store } = await testApp();
    for (const hostile of HOSTILE) {
      const before = await snapshotOf(store, field.collection);
      const r = await call('POST', field.path, { body: field.body(hostile) });
      assert.equal(r.status, 400, `${JSON.stringify(hostile.slice(0, 40))}: ${r.text}`);
      assert.equal(r.body.error, 1);
      assert.match(r.body.message, /valid (http\(s\) )?URL|at most \d+ characters|lone surrogate/);
      assert.equal(await snapshotOf(store, field.collection), before, 'nothing stored');
    }
    for (const bare of NO_SCHEME) {
      const before = await snapshotOf(store, field.collection);
      const r = await call('POST', field.path, { body: field.body(bare) });
      assert.equal(r.status, 400, `${bare}: ${r.text}`);
      assert.match(r.body.message, /must start with http:\/\/ or https:\/\//, bare);
      assert.equal(await snapshotOf(store, field.collection), before, 'nothing stored');
    }
    // Exactly as sent, but for the spaces around it: no slash added, no letter case or encoding changed.
    const asSent: [sent: string, kept: string][] = [
      ['https://example.com', 'https://example.com'],
      ['  HTTPS://Example.COM/ü?q=a b#x  ', 'HTTPS://Example.COM/ü?q=a b#x'],
      ['http://example.com:80/a/../b?x=%41', 'http://example.com:80/a/../b?x=%41'],
    ];
    for (const [sent, kept] of asSent) {
      // A custom alias each: a link without one may be answered by an identical earlier link.
      const ok = await call('POST', field.path, { body: { ...field.body(sent), ...(field.collection === 'links' ? { custom: `sent-${++made}` } : {}) } });
      assert.equal(ok.status, 200, ok.text);
      const record = (await allOf(store, field.collection)).at(-1);
      assert.equal(field.stored(record), kept, sent);
      if (field.collection === 'domains') await call('DELETE', `/api/domain/${ok.body.id}/delete`);
    }
  });
}

test('a link update refuses a hostile URL and keeps the stored one', async () => {
  const { call, store } = await testApp();
  const id = (await call('POST', '/api/url/add', { body: { url: 'https://example.com/keep' } })).body.id;
  const r = await call('PUT', `/api/url/${id}/update`, { body: { url: 'https://example.com/\r\nx' } });
  assert.equal(r.status, 400);
  assert.equal((await store.get<{ url: string } & { id: number }>('links', id))!.url, 'https://example.com/keep');
});
