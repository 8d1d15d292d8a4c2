/**
 * Test files that share a process. Each test process first loads the TypeScript hooks and then the
 * app's few hundred modules through them: about a second of CPU before its first test, most of what
 * a small file costs (40 small files: 64 s of CPU one process each, 18 s in one; 2 cores, 2026-11-26).
 * So the files that leave the process as they found it run a few to a process: a group is a module
 * that imports them in turn, their top-level tests registering in order at the top level, as each
 * would alone (the shared hooks of helpers.ts and backend.ts too, being imported once, at the top).
 * Each test still reports its own file (node's events carry where a test was declared).
 *
 * A file runs alone when it starts processes, or changes what the process holds (environment,
 * working directory, process listeners) — its source says so (ALONE_SOURCE) — or when it is long
 * (LONGEST in run.ts), so that it runs beside the others rather than inside a group. A server of
 * its own in the process (live-server.ts: a port, closed by the test) leaves nothing behind.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The name of a group's first test, in which its files are loaded: helpers.ts counts what is made then as made outside any test. */
export const GROUP_LOADING_TEST = 'load the test files of this group into one process';

/**
 * What in a file's source keeps it alone: processes, servers, browsers, the environment, the
 * process's listeners, and hooks of the top level other than `after` (in a group they would run
 * around every file's tests, or, registered after the group's first test, never).
 */
const ALONE_SOURCE = /child_process|spawn\(|fork\(|process-helpers|browser\.ts|pg-server|pg-replica|process\.env\.\w+\s*=[^=]|delete process\.env|process\.chdir|process\.on\(|process\.once\(|^(before|beforeEach|afterEach)\(/m;

/** Whether `file` (a path under `root`) must run in a process of its own. */
export function runsAlone(root: string, file: string): boolean {
  return ALONE_SOURCE.test(readFileSync(join(root, file), 'utf8'));
}

/**
 * Splits `files` into `count` groups of about equal cost (`cost`: the file's last time, ms) and
 * writes each as a module under `dir`, which loads `preload` first; returns the group modules' paths
 * (all paths relative to `root`), each with its files. Files of a group run in the order given.
 */
export function writeGroups(root: string, dir: string, name: string, files: string[], count: number, cost: (file: string) => number, preload: string): Array<{ entry: string; files: string[] }> {
  const groups = Array.from({ length: Math.min(count, files.length) }, () => ({ files: [] as string[], cost: 0 }));
  // Longest first, each to the cheapest group so far.
  for (const file of [...files].sort((a, b) => cost(b) - cost(a))) {
    const cheapest = groups.reduce((a, b) => (b.cost < a.cost ? b : a));
    cheapest.files.push(file);
    cheapest.cost += cost(file);
  }
  mkdirSync(join(root, dir), { recursive: true });
  return groups.map((g, i) => {
    const entry = join(dir, `${name}-${i + 1}.test.mjs`);
    const order = files.filter((f) => g.files.includes(f));
    writeFileSync(join(root, entry), groupModule(order.map((f) => pathToFileURL(join(root, f)).href), pathToFileURL(join(root, preload)).href));
    return { entry, files: order };
  });
}

/**
 * The module of a group. Its first test waits until every file is imported: the files' tests queue
 * behind it in file order, and the process's top-level `after` hooks (backend.ts drops the schemas)
 * cannot run in a pause of the imports (a file's top-level await), when no test is queued yet.
 * A file that fails to load fails that test, and the files after it are not loaded.
 */
function groupModule(urls: string[], preload: string): string {
  return `// ${urls.length} test files in one process (test/runner/groups.ts).
import { test } from 'node:test';
// First, so that their hooks around each test (helpers.ts counts nesting) go round this one too.
import ${JSON.stringify(preload)};
const files = ${JSON.stringify(urls, null, 2)};
let loaded, failed;
const all = new Promise((resolve, reject) => ((loaded = resolve), (failed = reject)));
test(${JSON.stringify(GROUP_LOADING_TEST)}, () => all);
try {
  for (const file of files) await import(file);
  loaded();
} catch (err) {
  failed(err);
}
`;
}
