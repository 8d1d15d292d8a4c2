/**
 * The coverage gate of `npm test`, owned by the runner rather than a `c8` wrapper around it: the test
 * processes write V8 coverage into one folder (NODE_V8_COVERAGE), and at the end `c8 report` checks
 * the same thresholds on what ran. When the PostgreSQL pass did not run, the code only it runs is
 * left out of the count, so a machine without PostgreSQL is not failed for a pass it could not run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const C8 = fileURLToPath(new URL('../../node_modules/c8/bin/c8.js', import.meta.url));
/** Where the test processes write their coverage (c8's own default place). */
export const COVERAGE_DATA = fileURLToPath(new URL('../../coverage/tmp/', import.meta.url));

/** The gate, as `npm test` always had it. */
const THRESHOLDS = ['--lines', '90', '--functions', '90', '--branches', '85'];

/** What only the PostgreSQL pass runs: the adapter, and the PostgreSQL-only parts of the cluster around it. */
export const POSTGRES_ONLY = ['src/store/postgres/**'];

/** The environment that makes a test process write its coverage (an empty folder, made afresh). */
export function coverageEnv(): Record<string, string> {
  rmSync(COVERAGE_DATA, { recursive: true, force: true });
  return { NODE_V8_COVERAGE: COVERAGE_DATA };
}

/** Prints the text summary and checks the thresholds; returns c8's exit code (non-zero below a threshold). */
export function checkCoverage(postgresRan: boolean): number {
  dropOtherTransforms();
  const excluded = postgresRan ? [] : POSTGRES_ONLY.flatMap((glob) => ['--exclude', glob]);
  const args = [C8, 'report', '--temp-directory', COVERAGE_DATA, '--check-coverage', ...THRESHOLDS, '--include', 'src/**', ...excluded, '--reporter=text-summary'];
  const report = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  return report.status ?? 1;
}

/**
 * Removes what tsx loaded inside a test process (URLs with `?tsx-namespace=`: the fake's package
 * entry, which fake-example.test.ts imports as a consumer would). They are another transform of
 * the same files than the test processes' loader made (test/runner/ts-loader.mjs), and c8 merges
 * V8 coverage by file before mapping it back: kept, they garble the counts of every file they share.
 */
function dropOtherTransforms(): void {
  const other = (url: string) => url.includes('?tsx-namespace=');
  for (const name of readdirSync(COVERAGE_DATA)) {
    const path = join(COVERAGE_DATA, name);
    const text = readFileSync(path, 'utf8');
    if (!text.includes('?tsx-namespace=')) continue;
    const data = JSON.parse(text) as { result: Array<{ url: string }>; 'source-map-cache'?: Record<string, unknown> };
    data.result = data.result.filter((script) => !other(script.url));
    const maps = data['source-map-cache'] ?? {};
    for (const url of Object.keys(maps)) if (other(url)) delete maps[url];
    writeFileSync(path, JSON.stringify(data));
  }
}
