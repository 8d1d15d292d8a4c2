import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode as encodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import type { QrLogo } from '../src/qr/logo.ts';
import { renderQrPng, renderQrSvg } from '../src/qr/render.ts';
import type { QrRenderOptions } from '../src/qr/render.ts';
import type { RenderTask } from '../src/qr/render-task.ts';
import { QrRenderer } from '../src/qr/renderer.ts';
import { CHILD_ENV, PROCESS_ADMIN_KEY, api } from './process-helpers.ts';
import { testApp } from './helpers.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function twoColourPng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) png.data.set(i % width < width / 2 ? [230, 40, 160, 255] : [40, 160, 230, 128], i * 4);
  return PNG.sync.write(png);
}

const pngLogo: QrLogo = { mime: 'image/png', bytes: twoColourPng(20, 10) };
const jpegLogo: QrLogo = { mime: 'image/jpeg', bytes: encodeJpeg({ width: 16, height: 16, data: Buffer.alloc(16 * 16 * 4, 90) }, 90).data };
// A PNG's signature and header, then nothing: accepted as a logo (its type is right) but it never decodes.
const brokenLogo: QrLogo = { mime: 'image/png', bytes: pngLogo.bytes.subarray(0, 33) };

/** What the renderer drew on the main thread before the pool, for the same inputs. */
async function onMainThread(task: RenderTask, logo: QrLogo | null = task.logo): Promise<Buffer> {
  const { format, payload, logo: _sent, ...options } = task;
  const opts: Partial<QrRenderOptions> = logo ? { ...options, logo } : options;
  return format === 'svg' ? Buffer.from(await renderQrSvg(payload, opts)) : renderQrPng(payload, opts);
}

const base: RenderTask = { format: 'png', payload: 'Hello, QR!', size: 256, margin: 2, errorCorrection: 'M', foreground: 'rgb(0,0,0)', background: 'rgb(255,255,255)', logo: null };
const cases: { name: string; task: RenderTask; asIf?: QrLogo | null }[] = [
  { name: 'PNG, defaults', task: base },
  { name: 'PNG 2048 px, level L, colours, no margin', task: { ...base, payload: 'https://sho.rt/qr/Ab3dE/scan', size: 2048, errorCorrection: 'L', margin: 0, foreground: 'rgb(20,40,120)', background: 'rgb(255,250,240)' } },
  { name: 'PNG with a PNG logo (alpha blended)', task: { ...base, size: 512, logo: pngLogo } },
  { name: 'PNG with a JPEG logo', task: { ...base, size: 384, logo: jpegLogo } },
  { name: 'SVG, margin 16, level Q', task: { ...base, format: 'svg', margin: 16, errorCorrection: 'Q', foreground: 'rgb(1,2,3)' } },
  { name: 'SVG with a PNG logo', task: { ...base, format: 'svg', logo: pngLogo } },
  { name: 'a logo that does not decode is drawn as no logo, as it always was', task: { ...base, errorCorrection: 'L', logo: brokenLogo }, asIf: null },
];

test('images drawn by the render threads are byte for byte what the renderer drew on the main thread', { timeout: 60_000 }, async (t) => {
  const renderer = new QrRenderer({ threads: 2, queue: 16 });
  try {
    for (const c of cases) {
      await t.test(c.name, async () => {
        const drawn = Buffer.from(await renderer.render(c.task));
        assert.ok(drawn.equals(await onMainThread(c.task, c.asIf === undefined ? c.task.logo : c.asIf)));
      });
    }
  } finally {
    await renderer.close();
  }
});

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}

test('render threads run at nice 10, below the event loop, so that on a busy machine it gets the CPU first', { skip: process.platform !== 'linux' ? 'per-thread priorities are a Linux matter' : getPriority() >= 10 && 'the tests run at nice 10 or lower already' }, async () => {
  const own = getPriority();
  const before = threadNices().filter((n) => n === 10).length;
  const renderer = new QrRenderer({ threads: 2, queue: 4 });
  try {
    await Promise.all([renderer.render(base), renderer.render({ ...base, size: 512 })]);
    assert.equal(threadNices().filter((n) => n === 10).length, before + 2);
    assert.equal(getPriority(), own, 'the event loop keeps its priority');
  } finally {
    await renderer.close();
  }
  assert.equal(threadNices().filter((n) => n === 10).length, before);
});

test('GET /qr/<alias> with a stored logo answers the bytes the main thread drew; a logo that does not decode is left out', { timeout: 60_000 }, async () => {
  const renderer = new QrRenderer({ threads: 1, queue: 16 });
  try {
    const { call, app } = await testApp({}, { renderer });
    const dataUri = (logo: QrLogo) => `data:${logo.mime};base64,${logo.bytes.toString('base64')}`;
    for (const [logo, drawnWith] of [[pngLogo, pngLogo], [brokenLogo, null]] as const) {
      const created = await call('POST', '/api/qr/add', { body: { type: 'text', data: 'logo test', logo: dataUri(logo), foreground: 'rgb(9,9,9)' } });
      assert.equal(created.status, 200, created.text);
      const res = await app.request(`${new URL(created.body.link).pathname}?size=512&ecl=L`);
      assert.equal(res.status, 200);
      const expected = await renderQrPng('logo test', { size: 512, errorCorrection: 'L', foreground: 'rgb(9,9,9)', ...(drawnWith ? { logo: drawnWith } : {}) });
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(expected));
    }
  } finally {
    await renderer.close();
  }
});

/** The server's build as `npm run build` makes it: test/run.ts's (TEST_SERVER_ENTRY), or made here as test/run.ts makes it. */
function buildEntry(): string {
  if (process.env.TEST_SERVER_ENTRY) return process.env.TEST_SERVER_ENTRY;
  const out = join(ROOT, '.test-dist');
  const built = spawnSync(process.execPath, [join(ROOT, 'bin/build.mjs'), out], { cwd: ROOT, stdio: 'inherit' });
  assert.equal(built.status, 0, 'the build failed');
  return join(out, 'main.js');
}

/** Starts the server with `node <args> serve` and resolves with its URL once it listens. */
function serve(args: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...args, 'serve'], { cwd: ROOT, env: { ...CHILD_ENV, PORT: '0', HOST: '127.0.0.1', DATA_DIR: ':memory:', ADMIN_API_KEY: PROCESS_ADMIN_KEY, LOG_LEVEL: 'info', RATE_LIMIT: '0' } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, stop });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`the server exited before listening:\n${out}`)));
  });
}

test('the render threads start both from the sources through tsx (npm start) and from the build (node dist/main.js)', { timeout: 300_000 }, async (t) => {
  const entry = buildEntry();
  const expectedPng = await renderQrPng('from a process', { size: 384, logo: pngLogo });
  const expectedSvg = Buffer.from(await renderQrSvg('from a process', { size: 384, logo: pngLogo }));
  for (const [name, args] of [['tsx', ['--import', 'tsx', 'src/main.ts']], ['build', [entry]]] as const) {
    await t.test(name, async () => {
      const server = await serve([...args]);
      try {
        const created = await api(server.url, 'POST', '/api/qr/add', { type: 'text', data: 'from a process', logo: `data:image/png;base64,${pngLogo.bytes.toString('base64')}` });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const path = new URL(created.body.link).pathname;
        const png = await fetch(`${server.url}${path}?size=400`);
        assert.equal(png.status, 200);
        assert.ok(Buffer.from(await png.arrayBuffer()).equals(expectedPng));
        const svg = await fetch(`${server.url}${path}?size=400&format=svg`);
        assert.ok(Buffer.from(await svg.arrayBuffer()).equals(expectedSvg));
      } finally {
        await server.stop();
      }
    });
  }
});
