/**
 * CPU of a website's statistics over many days, as the public stats page computes them: its zip
 * export (every panel's CSV) and the page's view, from synthetic days each holding the label cap
 * (1,000 labels) in every dimension: the most a day can hold. Median of 5 runs, ms.
 * The longest stretch the event loop was held is measured too (a timer that should fire every ms).
 * With --link, a link's export instead (GET /api/url/:id/stats/export): the dimensions a redirect
 * counts, each day at the cap.
 *   node --import tsx bench/stats-export-cost.ts [--days N] [--distinct] [--link] [--checkout DIR]
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';

const { values } = parseArgs({ options: { days: { type: 'string', default: '30' }, checkout: { type: 'string' }, distinct: { type: 'boolean', default: false }, link: { type: 'boolean', default: false } } });
const root = resolve(values.checkout ?? new URL('..', import.meta.url).pathname);
const { statsExport } = await import(`${root}/src/analytics/stats-export.ts`);
const { METRICS } = await import(`${root}/src/analytics/metrics.ts`);
const { linkStatsExport } = await import(`${root}/src/links/stats-export.ts`);
// What a redirect counts per link and day (src/visits): the totals, then a label map per dimension.
const LINK_DIMENSIONS = ['country', 'region', 'city', 'referrer', 'source', 'social', 'browser', 'os', 'device', 'language', 'utm_source', 'utm_medium', 'utm_campaign'];

const LABELS = 1000;
const dimensions = values.link ? LINK_DIMENSIONS : (METRICS as readonly string[]).filter((m) => !['pageviews', 'visitors', 'event_property'].includes(m));
const days = Array.from({ length: Number(values.days) }, (_, i) => {
  const counts: Record<string, unknown> = values.link ? { clicks: 5000, uniqueClicks: 2000 } : { pageviews: 5000, visitors: 2000 };
  for (const d of dimensions) {
    const labels: Record<string, number> = Object.create(null);
    // Without --distinct the days share most labels (1,500 in all); with it every day's are its own.
    for (let l = 0; l < LABELS; l++) labels[values.distinct ? `${d}-${i}-${l}` : `${d}-${(l * 7 + i) % 1500}`] = 1 + ((l * 13) % 17);
    counts[d] = labels;
  }
  return { day: `2026-10-${String((i % 28) + 1).padStart(2, '0')}`, counts };
});
const runs: number[] = [];
const held: number[] = [];
for (let r = 0; r < 5; r++) {
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const t = process.cpuUsage();
  await (values.link ? linkStatsExport : statsExport)(days, Date.parse('2026-11-27T00:00:00Z'));
  const c = process.cpuUsage(t);
  longest = Math.max(longest, performance.now() - last);
  clearInterval(tick);
  runs.push((c.user + c.system) / 1000);
  held.push(longest);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[2]!;
console.log(`${root}: ${values.link ? 'link ' : ''}export of ${values.days} full days (${dimensions.length} dimensions × ${LABELS} labels, ${values.distinct ? 'each day its own' : '1,500 in all'}): median ${median(runs).toFixed(0)} ms CPU (${runs.map((x) => x.toFixed(0)).join(', ')}), event loop held at most ${median(held).toFixed(0)} ms at a time (median of 5)`);
