/**
 * CPU of a website's statistics over many days, as the public stats page computes them: its zip
 * export (every panel's CSV) and the page's view, from synthetic days each holding the label cap
 * (1,000 labels) in every dimension: the most a day can hold. Median of 5 runs, ms.
 *   node --import tsx bench/stats-export-cost.ts [--days N] [--checkout DIR]
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';

const { values } = parseArgs({ options: { days: { type: 'string', default: '30' }, checkout: { type: 'string' } } });
const root = resolve(values.checkout ?? new URL('..', import.meta.url).pathname);
const { statsExport } = await import(`${root}/src/analytics/stats-export.ts`);
const { METRICS } = await import(`${root}/src/analytics/metrics.ts`);

const LABELS = 1000;
const dimensions = (METRICS as readonly string[]).filter((m) => !['pageviews', 'visitors', 'event_property'].includes(m));
const days = Array.from({ length: Number(values.days) }, (_, i) => {
  const counts: Record<string, unknown> = { pageviews: 5000, visitors: 2000 };
  for (const d of dimensions) {
    const labels: Record<string, number> = Object.create(null);
    for (let l = 0; l < LABELS; l++) labels[`${d}-${(l * 7 + i) % 1500}`] = 1 + ((l * 13) % 17);
    counts[d] = labels;
  }
  return { day: `2026-10-${String((i % 28) + 1).padStart(2, '0')}`, counts };
});
const runs: number[] = [];
for (let r = 0; r < 5; r++) {
  const t = process.cpuUsage();
  await statsExport(days, Date.parse('2026-11-27T00:00:00Z'));
  const c = process.cpuUsage(t);
  runs.push((c.user + c.system) / 1000);
}
runs.sort((a, b) => a - b);
console.log(`${root}: export of ${values.days} full days (${dimensions.length} dimensions × ${LABELS} labels): median ${runs[2]!.toFixed(0)} ms CPU (${runs.map((x) => x.toFixed(0)).join(', ')})`);
