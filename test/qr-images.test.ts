import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { ConfigError, loadConfig } from '../src/config.ts';
import type { Config } from '../src/config.ts';
import { imageKey, QrImageCache } from '../src/qr/image-cache.ts';
import { QR_IMAGE_SIZES, snapQrSize } from '../src/qr/image-sizes.ts';
import type { RenderTask } from '../src/qr/render-task.ts';
import { renderQrPng } from '../src/qr/render.ts';
import { QrRenderer, renderThreadCount } from '../src/qr/renderer.ts';
import { TEST_BACKEND } from './backend.ts';
import { eventually, snapshotOf, testApp } from './helpers.ts';

// Drawing, its threads, its queue and its cache are the same whatever the store: those tests run in the
// file pass only. What reads or writes QR codes through the store (an update, a refused add) runs on both.
const filePassOnly = TEST_BACKEND === 'postgres' ? 'drawing does not depend on the store: run in the file pass' : false;

/** An app whose QR images are drawn by a renderer of its own (so its renders can be counted), closed after `body`. */
async function withApp(options: { threads?: number; queue?: number; config?: Partial<Config> }, body: (ctx: Awaited<ReturnType<typeof testApp>> & { renderer: QrRenderer; addQr: (fields?: Record<string, unknown>) => Promise<{ id: number; alias: string }> }) => Promise<void>) {
  const renderer = new QrRenderer({ threads: options.threads ?? 1, queue: options.queue ?? 16 });
  try {
    const ctx = await testApp({ rateLimit: 0, ...options.config }, { renderer });
    const addQr = async (fields: Record<string, unknown> = {}) => {
      const r = await ctx.call('POST', '/api/qr/add', { body: { type: 'text', data: `hello ${Math.random()}`, ...fields } });
      assert.equal(r.status, 200, r.text);
      return { id: r.body.id as number, alias: new URL(r.body.link).pathname.split('/').pop()! };
    };
    await body({ ...ctx, renderer, addQr });
  } finally {
    await renderer.close();
  }
}

const image = async (res: Response) => Buffer.from(await res.arrayBuffer());

test('sizes snap to the nearest step of QR_IMAGE_SIZES', () => {
  const cases: [number, number][] = [[64, 64], [78, 64], [79, 96], [100, 96], [300, 256], [320, 384], [400, 384], [600, 512], [1100, 1024], [1300, 1536], [1800, 2048], [2048, 2048]];
  for (const [asked, drawn] of cases) assert.equal(snapQrSize(asked), drawn, `size ${asked}`);
  for (const step of QR_IMAGE_SIZES) assert.equal(snapQrSize(step), step);
});

test('the image cache keeps the most recently used images within its bytes', () => {
  const cache = new QrImageCache(10);
  const bytes = (n: number) => new Uint8Array(n);
  cache.set('a', bytes(4));
  cache.set('b', bytes(4));
  assert.ok(cache.get('a')); // a is now the most recent
  cache.set('c', bytes(4)); // 12 bytes: b goes
  assert.deepEqual([!!cache.get('a'), !!cache.get('b'), !!cache.get('c'), cache.bytes, cache.size], [true, false, true, 8, 2]);
  cache.set('big', bytes(11)); // larger than the whole cache: not kept, nothing dropped for it
  assert.deepEqual([!!cache.get('big'), cache.bytes, cache.size], [false, 8, 2]);
  cache.set('a', bytes(6)); // replaced: its old bytes are given back first
  assert.deepEqual([cache.bytes, cache.size], [10, 2]);
});

test('an image key changes with every input of the image, the logo by its bytes', () => {
  const logo = { mime: 'image/png' as const, bytes: Buffer.from('logo one') };
  const base: RenderTask = { format: 'png', payload: 'p', size: 256, margin: 2, errorCorrection: 'M', foreground: 'rgb(0,0,0)', background: 'rgb(255,255,255)', logo };
  const changed: Partial<RenderTask>[] = [{ format: 'svg' }, { payload: 'q' }, { size: 384 }, { margin: 3 }, { errorCorrection: 'H' }, { foreground: 'rgb(0,0,1)' }, { background: 'rgb(0,0,0)' }, { logo: null }, { logo: { mime: 'image/png', bytes: Buffer.from('logo two') } }];
  const keys = new Set([imageKey(base), ...changed.map((c) => imageKey({ ...base, ...c }))]);
  assert.equal(keys.size, changed.length + 1);
  // The same inputs, in another object (another process, a record read again): the same key.
  assert.equal(imageKey({ ...base, logo: { mime: 'image/png', bytes: Buffer.from('logo one') } }), imageKey(base));
});

test('RENDER_THREADS: auto leaves the event loops one core and shares the rest among the processes; a number is taken as given', () => {
  const threads = (env: Record<string, string>, cores: number) => renderThreadCount(loadConfig(env), cores);
  assert.equal(threads({}, 2), 1);
  assert.equal(threads({}, 1), 1);
  assert.equal(threads({}, 16), 15);
  assert.equal(threads({ WORKERS: '4', DATABASE_URL: 'postgres://db/x' }, 16), 3);
  assert.equal(threads({ WORKERS: 'auto', DATABASE_URL: 'postgres://db/x' }, 16), 1);
  assert.equal(threads({ RENDER_THREADS: '6' }, 2), 6);
  for (const bad of ['0', '257', 'many', '-1']) assert.throws(() => loadConfig({ RENDER_THREADS: bad }), (err: Error) => err instanceof ConfigError && err.message.startsWith('Invalid RENDER_THREADS'));
  assert.deepEqual([loadConfig({}).renderQueue, loadConfig({}).renderRateLimit, loadConfig({}).renderCacheBytes], [16, 60, 32 * 1024 * 1024]);
});

test('the event loop stays free while 2048 px images render: /health and a timer answer before any of them', { timeout: 60_000, skip: filePassOnly }, async () => {
  await withApp({ threads: 1 }, async ({ app, addQr, renderer }) => {
    const aliases = await Promise.all([1, 2, 3].map(() => addQr()));
    const order: string[] = [];
    const renders = aliases.map(({ alias }, i) => Promise.resolve(app.request(`/qr/${alias}?size=2048`)).then(async (res) => order.push(`render ${i} ${res.status} ${PNG.sync.read(await image(res)).width}`)));
    setTimeout(() => order.push('timer'), 0);
    const health = await app.request('/health');
    order.push(`health ${health.status}`);
    await Promise.all(renders);
    assert.deepEqual(order.slice(0, 2).sort(), ['health 200', 'timer']);
    assert.deepEqual(order.slice(2).sort(), ['render 0 200 2048', 'render 1 200 2048', 'render 2 200 2048']);
    assert.equal(renderer.renders, 3, 'every image was drawn by the pool');
  });
});

test('a full render queue answers 503 with Retry-After in the error shape, and draws nothing for it', { timeout: 60_000, skip: filePassOnly }, async () => {
  await withApp({ threads: 1, queue: 1 }, async ({ app, addQr, renderer }) => {
    const { alias } = await addQr();
    // Three different images at once: one drawn, one waiting, one refused.
    const answers = await Promise.all([2048, 1536, 1024].map((size) => app.request(`/qr/${alias}?size=${size}`)));
    const refused = answers.filter((r) => r.status === 503);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 200, 503]);
    assert.ok(Number(refused[0]!.headers.get('retry-after')) >= 1, String(refused[0]!.headers.get('retry-after')));
    assert.deepEqual(await refused[0]!.json(), { error: 1, message: 'The server is busy (QR render queue full). Please try again in a moment.' });
    assert.equal(renderer.renders, 2);
    // Once the queue has room, the same request is drawn.
    const again = await app.request(`/qr/${alias}?size=${[2048, 1536, 1024][answers.indexOf(refused[0]!)]}`);
    assert.equal(again.status, 200);
    assert.equal(renderer.renders, 3);
  });
});

test('sizes that snap to one step share one render and one cached image', { timeout: 60_000, skip: filePassOnly }, async () => {
  await withApp({}, async ({ app, addQr, renderer }) => {
    const { alias } = await addQr();
    const bodies: Buffer[] = [];
    for (const size of [300, 256, 270, 310]) {
      const res = await app.request(`/qr/${alias}?size=${size}`);
      assert.equal(res.status, 200);
      bodies.push(await image(res));
    }
    assert.equal(renderer.renders, 1);
    assert.ok(bodies.every((b) => b.equals(bodies[0]!)));
    assert.equal(PNG.sync.read(bodies[0]!).width, 256);
    // The default size (300) is the same image; another format, margin or level is another.
    assert.ok((await image(await app.request(`/qr/${alias}`))).equals(bodies[0]!));
    assert.equal(renderer.renders, 1);
    for (const query of ['format=svg', 'margin=4', 'ecl=H']) assert.equal((await app.request(`/qr/${alias}?size=300&${query}`)).status, 200);
    assert.equal(renderer.renders, 4);
  });
});

test('an update of the QR code draws its image anew; the old one is not served', { timeout: 60_000 }, async () => {
  await withApp({}, async ({ app, call, addQr, renderer }) => {
    const { id, alias } = await addQr({ data: 'version one', foreground: 'rgb(0,0,0)' });
    const darkest = (png: Buffer) => {
      const { data } = PNG.sync.read(png);
      return [...data.subarray(0, data.length)].reduce((min, v, i) => (i % 4 === 3 ? min : Math.min(min, v)), 255);
    };
    const first = await image(await app.request(`/qr/${alias}?size=256`));
    assert.ok(first.equals(await image(await app.request(`/qr/${alias}?size=256`))));
    assert.equal(renderer.renders, 1);
    const updated = await call('PUT', `/api/qr/${id}/update`, { body: { data: 'version two', foreground: 'rgb(40,40,40)' } });
    assert.equal(updated.status, 200, updated.text);
    const second = await image(await app.request(`/qr/${alias}?size=256`));
    assert.equal(renderer.renders, 2);
    assert.ok(!second.equals(first));
    assert.deepEqual([darkest(first), darkest(second)], [0, 40]);
    assert.ok(second.equals(await renderQrPng('version two', { size: 256, foreground: 'rgb(40,40,40)' })));
  });
});

test('uncached renders are limited per client (429 with Retry-After); cached images and other clients are not', { timeout: 60_000 }, async () => {
  await withApp({ config: { renderRateLimit: 2, trustProxy: true } }, async ({ app, addQr, renderer }) => {
    const { alias } = await addQr();
    const from = (ip: string, size: number) => app.request(`/qr/${alias}?size=${size}`, { headers: { 'x-forwarded-for': ip } });
    assert.equal((await from('203.0.113.5', 64)).status, 200);
    assert.equal((await from('203.0.113.5', 128)).status, 200);
    const over = await from('203.0.113.5', 256);
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.deepEqual(await over.json(), { error: 1, message: 'Too many QR images drawn for this client. Please try again later.' });
    assert.equal(renderer.renders, 2, 'the refused image was not drawn');
    // Already drawn: answered from the cache, however many times.
    for (let i = 0; i < 5; i++) assert.equal((await from('203.0.113.5', 64)).status, 200);
    // Another client has a limit of its own, and what it has drawn is then cached for everyone.
    assert.equal((await from('198.51.100.7', 256)).status, 200);
    assert.equal((await from('203.0.113.5', 256)).status, 200);
    assert.equal(renderer.renders, 3);
  });
});

test('a payload too long for the level asked for is a 400 from the render thread', { timeout: 60_000, skip: filePassOnly }, async () => {
  await withApp({}, async ({ app, addQr }) => {
    // Fits at M (2,331 bytes), not at H (1,273).
    const { alias } = await addQr({ data: 'x'.repeat(2000) });
    assert.equal((await app.request(`/qr/${alias}?ecl=M`)).status, 200);
    const refused = await app.request(`/qr/${alias}?ecl=H`);
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), { error: 1, message: 'The content is too long to fit in a QR code. Try a lower ecl.' });
  });
});

const PNG_1x1 = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('whether a long payload fits is checked on the render threads; a full queue is the API\'s 503, with nothing stored', { timeout: 60_000 }, async () => {
  await withApp({ threads: 1, queue: 0 }, async ({ app, call, store, addQr, renderer }) => {
    const add = (data: string) => call('POST', '/api/qr/add', { body: { type: 'text', data, logo: PNG_1x1 } });
    // Within byte mode's capacity the length tells: no thread is asked.
    assert.equal((await add('short')).status, 200);
    assert.equal(renderer.renders, 0);
    // 2,000 digits under a logo (level H) are past byte mode's 1,273 bytes and fit only in numeric mode: building the symbol tells, on a thread.
    const long = await add('1'.repeat(2000));
    assert.equal(long.status, 200, long.text);
    assert.equal((await store.get('qrs', long.body.id))!.data, '1'.repeat(2000));
    assert.equal(renderer.renders, 1);
    const before = await snapshotOf(store, 'qrs');
    const tooLong = await add('é'.repeat(2000));
    assert.deepEqual([tooLong.status, tooLong.body], [400, { error: 1, message: 'Invalid data: the content is too long to fit in a QR code with a logo.' }]);
    assert.equal(renderer.renders, 2);
    assert.equal(await snapshotOf(store, 'qrs'), before);
    // The one thread busy with an image and no room to wait: the create is refused, not queued without bound.
    const { alias } = await addQr();
    const drawing = app.request(`/qr/${alias}?size=2048`);
    assert.ok(await eventually(() => renderer.renders === 3), 'the image reached the thread');
    const snapshot = await snapshotOf(store, 'qrs');
    const refused = await add('2'.repeat(2000));
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.deepEqual(refused.body, { error: 1, message: 'The server is busy (QR render queue full). Please try again in a moment.' });
    assert.equal(await snapshotOf(store, 'qrs'), snapshot);
    assert.equal((await drawing).status, 200);
  });
});

test('the wait for a render thread does not count against DATABASE_TIMEOUT: a create whose fit check waited longer than it is stored', { timeout: 60_000 }, async () => {
  // The fit check held for 3 s, past a DATABASE_TIMEOUT of 1 s (on a loaded machine, a first render
  // and its thread's start took over 5 s, the default): the write after it still has its second (half
  // a second was too little for a write beside a whole test run on an embedded PostgreSQL).
  class HeldRenderer extends QrRenderer {
    held = 0;
    override async fits(payload: string, level: 'L' | 'M' | 'Q' | 'H'): Promise<boolean> {
      this.held++;
      await new Promise((resolve) => setTimeout(resolve, 3000));
      return super.fits(payload, level);
    }
  }
  const renderer = new HeldRenderer({ threads: 1, queue: 4 });
  try {
    const { call, store } = await testApp({ rateLimit: 0, databaseTimeout: 1 }, { renderer });
    const added = await call('POST', '/api/qr/add', { body: { type: 'text', data: '3'.repeat(2000), logo: PNG_1x1 } });
    assert.equal(added.status, 200, added.text);
    assert.equal(renderer.held, 1);
    assert.equal((await store.get('qrs', added.body.id))!.data, '3'.repeat(2000));
  } finally {
    await renderer.close();
  }
});
