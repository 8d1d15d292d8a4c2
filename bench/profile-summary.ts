/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --profile list`):
 * the functions with the most self time and the most inclusive time, as % of busy samples.
 * Usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top N] [--skip-ms MS] [--match text]
 * --skip-ms drops the first MS of the profile (start-up); --match lists the callers of matching functions;
 * --pauses N lists the N longest stretches of busy samples with nothing idle between them (what held the
 * event loop: a request waits behind one whole), each with the functions that took most of it.
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './processes.ts';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, 'skip-ms': { type: 'string', default: '0' }, match: { type: 'string' }, pauses: { type: 'string' } },
});
const file = positionals[0];
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--top N] [--skip-ms MS] [--match text]');
const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
const top = Number(values.top);
const skipUs = Number(values['skip-ms']) * 1000;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);
function label(n: Node): string {
  const { functionName, url, lineNumber } = n.callFrame;
  if (!url) return functionName || '(anonymous)';
  const where = url.startsWith('file://') ? relative(ROOT, new URL(url).pathname) : url;
  return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
}

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const callers = new Map<string, number>();
let busy = 0;
let idle = 0;
let gc = 0;
let t = 0;
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i] ?? 0;
  if (t < skipUs) return;
  const node = byId.get(id)!;
  const name = node.callFrame.functionName;
  if (name === '(idle)' || name === '(program)') return void idle++;
  if (name === '(garbage collector)') gc++;
  busy++;
  const own = label(node);
  self.set(own, (self.get(own) ?? 0) + 1);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur)!;
    if (n.callFrame.functionName === '(root)' || IDLE.has(n.callFrame.functionName)) continue;
    const l = label(n);
    if (!seen.has(l)) inclusive.set(l, (inclusive.get(l) ?? 0) + 1);
    seen.add(l);
    if (values.match && l.includes(values.match)) {
      const up = parent.get(cur);
      const caller = up === undefined ? '(root)' : label(byId.get(up)!);
      callers.set(caller, (callers.get(caller) ?? 0) + 1);
    }
  }
});

const pct = (n: number) => `${((n / busy) * 100).toFixed(1).padStart(5)}%`;
const list = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, n] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(n)}  ${name}`);
};
console.log(`${file}: ${busy} busy samples (${((busy / Math.max(1, busy + idle)) * 100).toFixed(0)}% of the profile after ${values['skip-ms']} ms), GC ${pct(gc)}`);
list('Self time', self);
list('Inclusive time', inclusive);
if (values.match) list(`Callers of "${values.match}"`, callers);

if (values.pauses) {
  // A stretch: consecutive busy samples; its length is the time those samples cover.
  const stretches: { startMs: number; ms: number; samples: number[] }[] = [];
  let open: { startMs: number; ms: number; samples: number[] } | null = null;
  let at = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const name = byId.get(id)!.callFrame.functionName;
    if (at < skipUs || name === '(idle)' || name === '(program)') {
      if (open) stretches.push(open);
      open = null;
      return;
    }
    open ??= { startMs: at / 1000, ms: 0, samples: [] };
    open.ms += (profile.timeDeltas[i + 1] ?? delta) / 1000;
    open.samples.push(id);
  });
  if (open) stretches.push(open);
  const longest = stretches.sort((a, b) => b.ms - a.ms).slice(0, Number(values.pauses));
  const lengths = stretches.map((s) => s.ms).sort((a, b) => a - b);
  const share = (ms: number) => lengths.filter((l) => l >= ms).reduce((sum, l) => sum + l, 0);
  console.log(`\nBusy stretches: ${stretches.length}; ${lengths.filter((l) => l >= 10).length} of 10 ms or more (${share(10).toFixed(0)} ms in all), ${lengths.filter((l) => l >= 50).length} of 50 ms or more`);
  for (const s of longest) {
    // The project's own frames on each sample's stack, innermost first: where the stretch went.
    const own = new Map<string, number>();
    for (const id of s.samples) {
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const n = byId.get(cur)!;
        if (n.callFrame.url.includes('/dist/') || n.callFrame.url.includes('/src/') || n.callFrame.functionName === '(garbage collector)') {
          const l = label(n);
          own.set(l, (own.get(l) ?? 0) + 1);
          break;
        }
      }
    }
    const where = [...own].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([l, n]) => `${((n / s.samples.length) * 100).toFixed(0)}% ${l}`);
    console.log(`${s.ms.toFixed(1).padStart(7)} ms at ${(s.startMs / 1000).toFixed(2)} s: ${where.join('; ') || '(node internals)'}`);
  }
}
