#!/usr/bin/env node
/**
 * `npm run build [-- <folder>]`: the server as the Docker image runs it (`node dist/main.js serve`),
 * bundled by esbuild with its dependencies into a few files, so a start reads a handful of modules
 * instead of ~400 sources and their packages' files (CPU to "listening", median of 7 starts on an
 * empty store: ~350 ms from a file-per-module build, ~190 ms bundled). No type check here: `npm run
 * typecheck` (tsc) does that, in the image's builder too.
 *
 * Layout (what the code finds beside itself through import.meta.url): main.js and render-worker.js
 * (the QR render threads' entry) and the chunks they share, all at the top of the folder, and
 * migrations/ (the PostgreSQL schema's SQL files). The GeoLite-style country database stays in
 * node_modules, found by package name. JavaScript, not TypeScript: it runs before anything is built.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Builds the server into `outdir` (emptied first); resolves with the path of its main.js. */
export async function buildServer(outdir = join(ROOT, 'dist')) {
  const out = resolve(ROOT, outdir);
  rmSync(out, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/main.ts', 'src/qr/render-worker.ts'],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    outdir: out,
    // Every file at the top: a chunk finds render-worker.js and migrations/ beside itself.
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    // Not minified, so functions keep their names without keepNames (which wraps every function,
    // closures made per request included, in a naming call: ~15% of a redirect's CPU); a linked
    // source map for `node --enable-source-maps`.
    sourcemap: 'linked',
    logLevel: 'warning',
    // The CommonJS packages bundled in (pg, qrcode, …) call require() for Node's own modules.
    banner: { js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);" },
  });
  cpSync(join(ROOT, 'src/store/postgres/migrations'), join(out, 'migrations'), { recursive: true });
  for (const made of ['main.js', 'render-worker.js', 'migrations/001-initial.sql']) {
    if (!existsSync(join(out, made))) throw new Error(`build: ${made} is missing from ${out}`);
  }
  return join(out, 'main.js');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const main = await buildServer(process.argv[2]);
  console.log(`built ${main}`);
}
