import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { encode as encodeJpeg } from 'jpeg-js';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { parseQrData } from '../src/qr/data.ts';
import { MAX_LOGO_BYTES, type QrLogo } from '../src/qr/logo.ts';
import { buildQrPayload } from '../src/qr/payload.ts';
import { publicFetch } from '../src/qr/public-fetch.ts';
import {
  QrTooLongError,
  loadLogo,
  parseDataUri,
  parseRgb,
  renderQrPng,
  renderQrSvg,
  rgbToHex,
  type QrRenderOptions,
} from '../src/qr/render.ts';

// jsqr is a CommonJS bundle whose typings only declare the `default` property.
const jsQR = jsQRModule.default;

type Rgb = [number, number, number];

function decodeRgba(data: Uint8Array, width: number, height: number) {
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height);
}

function readPng(buf: Buffer) {
  const png = PNG.sync.read(buf);
  const at = (x: number, y: number): Rgb => {
    const i = (Math.floor(y) * png.width + Math.floor(x)) * 4;
    return [png.data[i] ?? -1, png.data[i + 1] ?? -1, png.data[i + 2] ?? -1];
  };
  return { png, at, qr: decodeRgba(png.data, png.width, png.height) };
}

/** A PNG whose left half is `left` and right half is `right`. */
function twoColourPng(width: number, height: number, left: Rgb, right: Rgb): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) {
    png.data.set([...(i % width < width / 2 ? left : right), 255], i * 4);
  }
  return PNG.sync.write(png);
}

const LEFT: Rgb = [230, 40, 160];
const RIGHT: Rgb = [40, 160, 230];
const pngLogo: QrLogo = { mime: 'image/png', bytes: twoColourPng(20, 10, LEFT, RIGHT) };

function payloadFor(type: string, data: unknown, trackingUrl?: string): string {
  const parsed = parseQrData(type, data);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return buildQrPayload(parsed.value.type, parsed.value.data, trackingUrl ? { trackingUrl } : {});
}

const everyType: { name: string; type: string; data: unknown; trackingUrl?: string }[] = [
  { name: 'text', type: 'text', data: 'Hello, QR! Grüße ✓\nsecond line' },
  { name: 'link', type: 'link', data: 'https://example.com/path?q=1&r=2' },
  { name: 'link with tracking', type: 'link', data: 'https://example.com/', trackingUrl: 'https://sho.rt/qr/Ab3dE' },
  { name: 'phone', type: 'phone', data: '+1 (555) 123-4567' },
  { name: 'sms', type: 'sms', data: { phone: '+44 20 7946 0958', message: 'Hi: see you; ok' } },
  { name: 'email', type: 'email', data: { email: 'jane@example.com', subject: 'Hello & welcome', body: 'Line 1\nLine 2' } },
  {
    name: 'vcard',
    type: 'vcard',
    data: { name: 'Doe, Jane', phone: '+1 555 0100', email: 'jane@example.com', company: 'ACME; Labs', address: '1 Main St', website: 'https://example.com', note: 'a\nb' },
  },
  { name: 'wifi', type: 'wifi', data: { ssid: 'Home;Net', password: 'p:a\\s,s"', hidden: true } },
];

test('a rendered PNG of every type decodes to its payload', async (t) => {
  for (const c of everyType) {
    await t.test(c.name, async () => {
      const payload = payloadFor(c.type, c.data, c.trackingUrl);
      const { png, qr, at } = readPng(await renderQrPng(payload));
      assert.equal(png.width, 300);
      assert.equal(png.height, 300);
      assert.equal(qr?.data, payload);
      assert.deepEqual(at(0, 0), [255, 255, 255]);
    });
  }
});

test('PNG options are honoured', async (t) => {
  const cases: { name: string; payload: string; opts: Partial<QrRenderOptions>; check: (r: ReturnType<typeof readPng>) => void }[] = [
    {
      name: 'custom colours still decode; quiet zone is background, finder corner is foreground',
      payload: 'hi',
      // version 1 (21 modules) + 2 × 2 margin = 25 modules of 12 px
      opts: { foreground: 'rgb(20, 40, 120)', background: 'rgb(250,240,200)' },
      check: ({ qr, at }) => {
        assert.equal(qr?.data, 'hi');
        assert.deepEqual(at(5, 5), [250, 240, 200]);
        assert.deepEqual(at(2 * 12 + 6, 2 * 12 + 6), [20, 40, 120]);
      },
    },
    {
      name: 'margin 0 puts the finder pattern at the corner',
      payload: 'hi',
      opts: { margin: 0, size: 210 },
      check: ({ at }) => {
        assert.deepEqual(at(0, 0), [0, 0, 0]);
        assert.deepEqual(at(209, 0), [0, 0, 0]);
        assert.deepEqual(at(209, 209), [255, 255, 255]);
      },
    },
    {
      name: 'margin 4 leaves four modules of background',
      payload: 'hi',
      opts: { margin: 4, size: 290 },
      check: ({ png, at, qr }) => {
        assert.equal(png.width, 290);
        assert.equal(qr?.data, 'hi');
        assert.deepEqual(at(39, 39), [255, 255, 255]);
        assert.deepEqual(at(40, 40), [0, 0, 0]);
      },
    },
    { name: 'size 64', payload: 'hi', opts: { size: 64 }, check: ({ png }) => assert.deepEqual([png.width, png.height], [64, 64]) },
    { name: 'size 2048', payload: 'hi', opts: { size: 2048 }, check: ({ png }) => assert.equal(png.width, 2048) },
    {
      name: 'a size below one px per module is raised to the module count',
      payload: 'a'.repeat(2900),
      opts: { size: 64, errorCorrection: 'L' },
      // only version 40 (177 modules) holds 2900 bytes at L; plus 2 × 2 margin
      check: ({ png, qr }) => {
        assert.deepEqual([png.width, png.height], [181, 181]);
        assert.equal(qr?.data, 'a'.repeat(2900));
      },
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => c.check(readPng(await renderQrPng(c.payload, c.opts))));
  }
});

test('error correction is honoured and a logo forces H', async () => {
  const payload = 'https://example.com/some/long/path?with=query&and=more';
  const version = async (opts: Partial<QrRenderOptions>) => readPng(await renderQrPng(payload, opts)).qr?.version;
  const low = await version({ errorCorrection: 'L' });
  const high = await version({ errorCorrection: 'H' });
  assert.ok(low !== undefined && high !== undefined && high > low, `L=${low} H=${high}`);
  assert.equal(await version({ errorCorrection: 'L', logo: pngLogo }), high);
});

test('a PNG logo is drawn in the centre on a background pad and the code still decodes', async (t) => {
  const jpegLogo: QrLogo = {
    mime: 'image/jpeg',
    bytes: encodeJpeg({ width: 16, height: 16, data: Buffer.alloc(16 * 16 * 4, Buffer.from([...RIGHT, 255])) }, 95).data,
  };
  const cases = [
    { name: 'PNG logo, link', payload: 'https://sho.rt/qr/Ab3dE', logo: pngLogo, exact: true },
    { name: 'PNG logo, long vcard', payload: payloadFor('vcard', everyType.find((e) => e.type === 'vcard')?.data), logo: pngLogo, exact: true },
    { name: 'JPEG logo', payload: 'https://sho.rt/qr/Ab3dE', logo: jpegLogo, exact: false },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const background: Rgb = [255, 250, 240];
      const { qr, at } = readPng(await renderQrPng(c.payload, { logo: c.logo, background: 'rgb(255,250,240)' }));
      assert.equal(qr?.data, c.payload);
      const count = 17 + 4 * qr.version;
      const scale = Math.floor(300 / (count + 4));
      const logoWidth = 0.2 * count * scale;
      const close = (actual: Rgb, expected: Rgb) =>
        assert.ok(actual.every((v, i) => Math.abs(v - (expected[i] ?? 0)) <= (c.exact ? 0 : 8)), `${actual} ≉ ${expected}`);
      close(at(150 + logoWidth / 4, 150), RIGHT);
      if (c.exact) close(at(150 - logoWidth / 4, 150), LEFT);
      // The 20×10 logo is half as tall as wide; one module of pad lies above it.
      const logoHeight = c.exact ? logoWidth / 2 : logoWidth;
      const padRow = 150 - logoHeight / 2 - scale / 2;
      for (let x = 150 - logoWidth / 2; x <= 150 + logoWidth / 2; x++) assert.deepEqual(at(x, padRow), background, `pad at x=${x}`);
    });
  }
});

/** Rasterises our SVG's single path (runs of `M x y h n v1 h-n z`) at 8 px per module. */
function rasterizeSvg(svg: string) {
  const total = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const scale = 8;
  const side = total * scale;
  const data = new Uint8Array(side * side * 4).fill(255);
  const d = /<path fill="#[0-9a-f]{6}" d="([^"]*)"/.exec(svg)?.[1] ?? '';
  for (const [, x, y, run] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) {
    for (let py = Number(y) * scale; py < (Number(y) + 1) * scale; py++) {
      for (let px = Number(x) * scale; px < (Number(x) + Number(run)) * scale; px++) data.fill(0, (py * side + px) * 4, (py * side + px) * 4 + 3);
    }
  }
  return { total, qr: decodeRgba(data, side, side) };
}

test('SVG output', async (t) => {
  await t.test('every type decodes from the SVG path', async (t2) => {
    for (const c of everyType) {
      await t2.test(c.name, async () => {
        const payload = payloadFor(c.type, c.data, c.trackingUrl);
        assert.equal(rasterizeSvg(await renderQrSvg(payload)).qr?.data, payload);
      });
    }
  });
  await t.test('size, colours and quiet zone', async () => {
    // 'hi' is version 1: 21 modules, plus 2 × 3 margin.
    const svg = await renderQrSvg('hi', { size: 512, foreground: 'rgb(255,0,16)', background: 'rgb(0, 0, 0)', margin: 3 });
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="512" height="512" viewBox="0 0 27 27"/);
    assert.match(svg, /<rect width="27" height="27" fill="#000000"\/>/);
    assert.match(svg, /<path fill="#ff0010" d="M3 3h7v1h-7z/);
    assert.doesNotMatch(svg, /<image/);
  });
  await t.test('logo is embedded as a data: URI on a pad, with error correction H', async () => {
    const svg = await renderQrSvg('https://sho.rt/qr/Ab3dE', { logo: pngLogo });
    const plainH = await renderQrSvg('https://sho.rt/qr/Ab3dE', { errorCorrection: 'H' });
    const { total, qr } = rasterizeSvg(plainH);
    assert.equal(qr?.data, 'https://sho.rt/qr/Ab3dE');
    assert.equal(rasterizeSvg(svg).total, total);
    const count = total - 4;
    const w = (0.2 * count).toFixed(3).replace(/\.?0+$/, '');
    assert.ok(svg.includes(`href="data:image/png;base64,${pngLogo.bytes.toString('base64')}"/>`));
    assert.match(svg, new RegExp(`<image x="[\\d.]+" y="[\\d.]+" width="${w}" height="[\\d.]+" href=`));
    assert.match(svg, /<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="#ffffff"\/><image /);
  });
});

test('rendering rejects bad options and content that does not fit', async (t) => {
  const cases: { name: string; payload?: string; opts: Partial<QrRenderOptions>; error: RegExp | typeof QrTooLongError }[] = [
    { name: 'size too small', opts: { size: 63 }, error: /size must be an integer from 64 to 2048/ },
    { name: 'size too big', opts: { size: 2049 }, error: /size must be/ },
    { name: 'size fractional', opts: { size: 300.5 }, error: /size must be/ },
    { name: 'margin negative', opts: { margin: -1 }, error: /margin must be an integer from 0 to 16/ },
    { name: 'margin too big', opts: { margin: 17 }, error: /margin must be/ },
    { name: 'unknown error correction', opts: { errorCorrection: 'X' as 'L' }, error: /errorCorrection must be L, M, Q or H/ },
    { name: 'colour name', opts: { foreground: 'red' }, error: /rgb\(R,G,B\)/ },
    { name: 'colour out of range', opts: { background: 'rgb(256,0,0)' }, error: /rgb\(R,G,B\)/ },
    { name: 'too long at H', payload: 'a'.repeat(2000), opts: { errorCorrection: 'H' }, error: QrTooLongError },
    { name: 'too long once a logo forces H', payload: 'a'.repeat(2000), opts: { logo: pngLogo }, error: QrTooLongError },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      await assert.rejects(renderQrPng(c.payload ?? 'hi', c.opts), c.error);
      await assert.rejects(renderQrSvg(c.payload ?? 'hi', c.opts), c.error);
    });
  }
});

test('parseRgb and rgbToHex', async (t) => {
  const cases: { input: string; expected: { r: number; g: number; b: number } | null; hex?: string }[] = [
    { input: 'rgb(0,0,0)', expected: { r: 0, g: 0, b: 0 }, hex: '#000000' },
    { input: 'rgb(255, 128, 7)', expected: { r: 255, g: 128, b: 7 }, hex: '#ff8007' },
    { input: '  RGB( 1 ,2, 3 ) ', expected: { r: 1, g: 2, b: 3 }, hex: '#010203' },
    { input: 'rgb(256,0,0)', expected: null },
    { input: 'rgb(1,2)', expected: null },
    { input: 'rgb(-1,2,3)', expected: null },
    { input: 'rgb(1.5,2,3)', expected: null },
    { input: 'rgba(1,2,3,1)', expected: null },
    { input: '#ff0000', expected: null },
    { input: '', expected: null },
  ];
  for (const c of cases) {
    await t.test(JSON.stringify(c.input), () => {
      const rgb = parseRgb(c.input);
      assert.deepEqual(rgb, c.expected);
      if (rgb) assert.equal(rgbToHex(rgb), c.hex);
    });
  }
});

test('parseDataUri', async (t) => {
  const png = pngLogo.bytes;
  const jpeg = encodeJpeg({ width: 2, height: 2, data: Buffer.alloc(16, 200) }, 90).data;
  const b64 = (b: Buffer) => b.toString('base64');
  const cases: { name: string; uri: string; expected: QrLogo | null }[] = [
    { name: 'png', uri: `data:image/png;base64,${b64(png)}`, expected: { mime: 'image/png', bytes: png } },
    { name: 'jpeg', uri: `data:image/jpeg;base64,${b64(jpeg)}`, expected: { mime: 'image/jpeg', bytes: jpeg } },
    { name: 'jpg alias, line-wrapped base64', uri: `data:image/jpg;base64,${b64(jpeg).replace(/(.{40})/g, '$1\n')}`, expected: { mime: 'image/jpeg', bytes: jpeg } },
    { name: 'declared png but jpeg bytes', uri: `data:image/png;base64,${b64(jpeg)}`, expected: null },
    { name: 'gif', uri: `data:image/gif;base64,${b64(Buffer.from('GIF89a'))}`, expected: null },
    { name: 'not base64', uri: 'data:image/png;base64,@@@', expected: null },
    { name: 'not base64-encoded', uri: `data:image/png,${b64(png)}`, expected: null },
    { name: 'text bytes', uri: `data:image/png;base64,${b64(Buffer.from('hello'))}`, expected: null },
    { name: 'not a data URI', uri: 'https://example.com/logo.png', expected: null },
  ];
  for (const c of cases) await t.test(c.name, () => assert.deepEqual(parseDataUri(c.uri), c.expected));
});

test('loadLogo', async (t) => {
  const png = pngLogo.bytes;
  // Noise does not compress, so this PNG is larger than the limit.
  const noise = new PNG({ width: 400, height: 400 });
  let seed = 1;
  for (let i = 0; i < noise.data.length; i++) noise.data[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  const big = PNG.sync.write(noise);
  assert.ok(big.length > MAX_LOGO_BYTES);
  // Small on disk but 4 004 001 pixels once inflated: over the 4-megapixel cap.
  const bomb = PNG.sync.write(new PNG({ width: 2001, height: 2001 }));
  assert.ok(bomb.length < MAX_LOGO_BYTES);
  const calls: string[] = [];
  const respond = (make: () => Response | Promise<Response>): typeof fetch =>
    async (input) => {
      calls.push(String(input));
      return make();
    };
  // An endless body that starts like a PNG; counts how much of it was pulled.
  let pulled = 0;
  const endless = () => {
    pulled = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(pulled++ === 0 ? new Uint8Array(png) : new Uint8Array(64 * 1024));
      },
    });
  };
  const cases: { name: string; src: string; fetch?: typeof fetch; expected: QrLogo | null; fetched: number; maxPulled?: number }[] = [
    { name: 'data URI', src: `data:image/png;base64,${png.toString('base64')}`, expected: pngLogo, fetched: 0 },
    { name: 'data URI over 500 KB', src: `data:image/png;base64,${big.toString('base64')}`, expected: null, fetched: 0 },
    { name: 'data URI of a PNG with too many pixels', src: `data:image/png;base64,${bomb.toString('base64')}`, expected: null, fetched: 0 },
    { name: 'data URI of a truncated PNG', src: `data:image/png;base64,${png.subarray(0, 40).toString('base64')}`, expected: null, fetched: 0 },
    { name: 'URL, type by magic bytes', src: 'https://cdn.example/logo', fetch: respond(() => new Response(new Uint8Array(png), { headers: { 'content-type': 'text/plain' } })), expected: pngLogo, fetched: 1 },
    { name: 'URL serving HTML', src: 'https://cdn.example/logo.png', fetch: respond(() => new Response('<html>')), expected: null, fetched: 1 },
    { name: 'URL answering 404', src: 'http://cdn.example/logo.png', fetch: respond(() => new Response(new Uint8Array(png), { status: 404 })), expected: null, fetched: 1 },
    { name: 'URL whose fetch fails', src: 'https://cdn.example/logo.png', fetch: respond(() => Promise.reject(new TypeError('fetch failed'))), expected: null, fetched: 1 },
    { name: 'URL declaring too large a body', src: 'https://cdn.example/logo.png', fetch: respond(() => new Response(new Uint8Array(png), { headers: { 'content-length': String(MAX_LOGO_BYTES + 1) } })), expected: null, fetched: 1 },
    { name: 'URL streaming too large a body', src: 'https://cdn.example/logo.png', fetch: respond(() => new Response(endless())), expected: null, fetched: 1, maxPulled: 10 },
    { name: 'URL that never answers', src: 'https://cdn.example/slow.png', fetch: respond(() => new Promise<Response>(() => {})), expected: null, fetched: 1 },
    { name: 'file: URL is not fetched', src: 'file:///etc/passwd', expected: null, fetched: 0 },
    { name: 'a bare path is not read', src: '/etc/passwd', expected: null, fetched: 0 },
  ];
  for (const c of cases) {
    // A load that never ends would hang the test: its timeout fails it instead (no bound on wall time: machines are shared).
    await t.test(c.name, { timeout: 60_000 }, async () => {
      calls.length = 0;
      assert.deepEqual(await loadLogo(c.src, c.fetch ?? respond(() => new Response(new Uint8Array(png))), 100), c.expected);
      assert.equal(calls.length, c.fetched);
      if (c.maxPulled !== undefined) assert.ok(pulled <= c.maxPulled, `pulled ${pulled} chunks`);
    });
  }
  await t.test('over real HTTP, through the checked fetch (loopback allowed for the test)', { timeout: 60_000 }, async () => {
    const loopbackFetch = publicFetch({ allow: (address) => address === '127.0.0.1' });
    const server = createServer((req, res) => {
      if (req.url === '/logo.png') res.end(png);
      // /slow never answers, to exercise the timeout.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      assert.deepEqual(await loadLogo(`${base}/logo.png`, loopbackFetch), pngLogo);
      assert.equal(await loadLogo(`${base}/logo.png`), null, 'the default fetch refuses loopback');
      assert.equal(await loadLogo(`${base}/slow`, loopbackFetch, 200), null, 'a server that never answers: no logo once the time allowed is over');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
