import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker thread running the module `entry`, from the sources or from the build alike. A
 * `.js` entry (the tsc build: `node dist/main.js`) starts as it is. A `.ts` entry (tsx: `npm start`,
 * the tests, the fake package's tsImport) needs tsx in the thread too, and Node 20 does not carry
 * `--import tsx`'s loader into workers ("Unknown file extension .ts"), so the thread registers it
 * itself, resolved from here, before it imports the entry.
 */
export function startThread(entry: URL, resourceLimits?: ResourceLimits): Worker {
  const options = { resourceLimits };
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/** The URL of module `name` (without extension) beside `base`, in `base`'s own language: `.ts` under tsx, `.js` in the build. */
export function siblingModule(name: string, base: string): URL {
  return new URL(`./${name}${new URL(base).pathname.endsWith('.ts') ? '.ts' : '.js'}`, base);
}
