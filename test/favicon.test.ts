/** The site's icon: inline on every page (page-security.test.ts checks each page), and at /favicon.ico for everything else. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAVICON_SVG } from '../src/html/favicon.ts';
import { testApp } from './helpers.ts';

test('/favicon.ico is an ICO holding a 32x32 PNG, cached for a day, without a key', async () => {
  const { app } = await testApp();
  const res = await app.request('/favicon.ico', { headers: { accept: 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8' } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/x-icon');
  assert.equal(res.headers.get('cache-control'), 'public, max-age=86400');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  const ico = Buffer.from(await res.arrayBuffer());
  assert.deepEqual([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)], [0, 1, 1], 'an icon directory of one image');
  assert.deepEqual([ico[6], ico[7], ico.readUInt16LE(12)], [32, 32, 32], '32x32, 32 bits per pixel');
  const [size, offset] = [ico.readUInt32LE(14), ico.readUInt32LE(18)];
  assert.equal(offset + size, ico.length, 'the image fills the rest of the file');
  const png = ico.subarray(offset);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  assert.equal(png.toString('latin1', 12, 16), 'IHDR');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [32, 32]);

  const head = await app.request('/favicon.ico', { method: 'HEAD' });
  assert.deepEqual([head.status, head.headers.get('content-type'), (await head.arrayBuffer()).byteLength], [200, 'image/x-icon', 0]);
});

test('the API reference page carries the icon and its CSP allows it', async () => {
  const { app } = await testApp();
  const res = await app.request('/docs');
  const html = await res.text();
  assert.ok(html.includes(`<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}">`));
  assert.match(res.headers.get('content-security-policy') ?? '', /(^|; )img-src data:(;|$)/);
});
