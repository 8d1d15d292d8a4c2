/**
 * Preloaded into a server under the soak (`node --import ./bench/memory-probe.mjs`): appends
 * process.memoryUsage() as one JSON line every MEMORY_PROBE_MS (default 1000) to MEMORY_PROBE_FILE,
 * so the soak can tell the V8 heap from the rest of the RSS without touching the server's code.
 * With MEMORY_PROBE_GC=1 and node's --expose-gc, a full collection runs before each sample, so
 * heapUsed is the live heap (a diagnosis: it changes how the RSS behaves).
 */
import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.MEMORY_PROBE_FILE;
const every = Number(process.env.MEMORY_PROBE_MS ?? 1000);
if (file) {
  const collect = process.env.MEMORY_PROBE_GC === '1' && typeof globalThis.gc === 'function' ? globalThis.gc : () => {};
  const sample = () => {
    collect();
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
    appendFileSync(file, JSON.stringify({ at: Date.now(), ...process.memoryUsage(), spaces }) + '\n');
  };
  sample();
  setInterval(sample, every).unref();
}
