/**
 * The module hooks of test/runner/ts-loader.mjs: a `.ts` module is esbuild's transform of it (types
 * stripped, an inline source map for stack traces and coverage), kept in a cache folder by the hash
 * of its path and text. Everything else, resolution included, is Node's own.
 * JavaScript: it is what makes TypeScript loadable.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TSCONFIG = JSON.parse(readFileSync(new URL('../../tsconfig.json', import.meta.url), 'utf8'));
const OPTIONS = {
  loader: 'ts',
  format: 'esm',
  // This Node exactly: esbuild drops what it believes the target lacks (a bare `node20` loses `with { type: 'json' }`).
  target: `node${process.versions.node}`,
  sourcemap: 'inline',
  // As tsx transforms: coverage is mapped back to the .ts lines the same way, so `npm test`'s
  // thresholds measure the same thing whichever loader ran (names kept for stack traces).
  minifyWhitespace: true,
  keepNames: true,
  sourcesContent: Boolean(process.env.NODE_V8_COVERAGE),
  // verbatimModuleSyntax keeps imports whose bindings are unused, as tsc and tsx do.
  tsconfigRaw: { compilerOptions: TSCONFIG.compilerOptions },
};
// What a kept transform depends on besides its file: esbuild's version (read from its package.json:
// a process whose modules are all kept never loads esbuild itself) and the options.
const SALT = `${JSON.parse(readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8')).version}\0${JSON.stringify(OPTIONS)}`;
let esbuild = null;
let cache = null;

/** Node's load hook: TypeScript through esbuild, the rest untouched. */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !/\.tsx?(\?|$)/.test(url)) return nextLoad(url, context);
  const path = fileURLToPath(url.replace(/\?.*$/, ''));
  const source = readFileSync(path, 'utf8');
  cache ??= folder();
  const key = createHash('sha1').update(`${SALT}\0${path}\0`).update(source).digest('hex');
  const kept = join(cache, `${key}.js`);
  let code;
  try {
    code = readFileSync(kept, 'utf8');
  } catch {
    esbuild ??= (await import('esbuild')).default;
    code = esbuild.transformSync(source, { ...OPTIONS, loader: path.endsWith('.tsx') ? 'tsx' : 'ts', sourcefile: path }).code;
    // Written aside and renamed: a process reading it at the same moment sees all of it or none.
    const aside = `${kept}.${process.pid}`;
    writeFileSync(aside, code);
    renameSync(aside, kept);
  }
  return { format: 'module', source: code, shortCircuit: true };
}

function folder() {
  const dir = join(tmpdir(), `shortlink-test-ts-${process.getuid?.() ?? 'user'}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
