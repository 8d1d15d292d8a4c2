import { raw } from 'hono/html';
import { NARROW, WIDE, chartTable, lineChart } from '../../analytics/chart.ts';
import { flagOf } from '../../analytics/stats-panels.ts';
import { formatDate } from '../../clock.ts';
import { countText } from '../../html/count-text.ts';
import type { Services } from '../../resources/define.ts';
import { labelsOfDimension, mergeCountsInTurns, totalOf } from '../../stats/counts.ts';
import { topLabels } from '../../visits/top.ts';
import { subjectOf } from '../../links/stats.ts';

/** The periods a link's statistics offer, in days up to today. */
export const PERIODS = [7, 30, 90, 365] as const;

/** The panels of a link's statistics: the click dimensions the redirect counts. */
const PANELS = [
  { dimension: 'country', title: 'Countries' },
  { dimension: 'referrer', title: 'Referrers' },
  { dimension: 'browser', title: 'Browsers' },
  { dimension: 'os', title: 'Operating systems' },
  { dimension: 'device', title: 'Devices' },
  { dimension: 'language', title: 'Languages' },
] as const;

const SHOWN = new Set<string>(PANELS.map((p) => p.dimension));
const PANEL_ROWS = 10;
const DAY = 86_400_000;

/** A link's statistics over a period: its days' clicks for the chart and the top labels of each panel. */
export interface LinkStats {
  days: number;
  labels: string[];
  clicks: number[];
  unique: number[];
  total: { clicks: number; unique: number };
  panels: { title: string; dimension: string; rows: [string, number][] }[];
}

/** Reads a link's statistics of the last `days` days (UTC), through the counters the API's link statistics read. */
export async function linkStats(s: Pick<Services, 'counters' | 'clock'>, linkId: number, days: number): Promise<LinkStats> {
  const now = s.clock.now();
  const labels = Array.from({ length: days }, (_, i) => formatDate(now - (days - 1 - i) * DAY));
  const stored = await s.counters.days(subjectOf('link', linkId), labels[0], labels.at(-1));
  const byDay = new Map(stored.map((d) => [d.day, d.counts]));
  // A year of a busy link's labels: summed a day at a time between turns of the event loop, the panels' dimensions only.
  const sum = await mergeCountsInTurns(stored.map((d) => d.counts), undefined, (dimension) => SHOWN.has(dimension));
  const clicks = labels.map((d) => totalOf(byDay.get(d) ?? {}, 'clicks'));
  const unique = labels.map((d) => totalOf(byDay.get(d) ?? {}, 'uniqueClicks'));
  const panels = PANELS.map((p) => ({
    ...p,
    rows: topLabels(labelsOfDimension(sum, p.dimension), PANEL_ROWS).map((r): [string, number] => [r.value, r.count]),
  }));
  return { days, labels, clicks, unique, total: { clicks: totalOf(sum, 'clicks'), unique: totalOf(sum, 'uniqueClicks') }, panels };
}

/** The statistics card of a link: the period's presets, the totals, the chart (wide and narrow, as the stats page draws it), the panels. */
export function LinkStatsView(props: { id: number; alias: string; stats: LinkStats }) {
  const { stats } = props;
  const lines = [
    { name: 'clicks', color: '#0969da', values: stats.clicks },
    { name: 'unique clicks', color: '#1f883d', values: stats.unique },
  ];
  const title = `Clicks of ${props.alias} per day`;
  const desc = `${countText(stats.total.clicks)} clicks, ${countText(stats.total.unique)} unique, from ${stats.labels[0] ?? ''} to ${stats.labels.at(-1) ?? ''}.`;
  const chart = lineChart(stats.labels, lines, title, WIDE, desc).replace('class="chart"', 'class="chart wide"') + lineChart(stats.labels, lines, title, NARROW, desc).replace('class="chart"', 'class="chart narrow"');
  return (
    <>
      <section class="card" aria-labelledby="stats">
        <div class="head">
          <h2 id="stats">Statistics</h2>
        </div>
        <nav class="periods" aria-label="Period">
          {PERIODS.map((n) => (
            <a href={`/app/links/${props.id}?days=${n}`} aria-current={stats.days === n ? 'page' : undefined}>
              {n === 365 ? 'Last 12 months' : `Last ${n} days`}
            </a>
          ))}
        </nav>
        <div class="totals">
          <div class="figure">
            <span class="name">Clicks</span>
            <b>{countText(stats.total.clicks)}</b>
          </div>
          <div class="figure">
            <span class="name">Unique clicks</span>
            <b>{countText(stats.total.unique)}</b>
          </div>
        </div>
        <p class="muted">Days are UTC days. A click counts as unique once a day per visitor.</p>
        {raw(chart)}
        {raw(chartTable(stats.labels, lines, 'Day'))}
      </section>
      <div class="grid">
        {stats.panels.map((p) => (
          <section class="card" aria-labelledby={`panel-${p.dimension}`}>
            <h2 id={`panel-${p.dimension}`}>{p.title}</h2>
            {p.rows.length === 0 ? (
              <p class="muted">No clicks in this period.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">{p.title.replace(/s$/, '')}</th>
                    <th scope="col" class="n">
                      Clicks
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {p.rows.map(([label, n]) => (
                    <tr>
                      <td>
                        {p.dimension === 'country' && flagOf(label) ? `${flagOf(label)} ` : ''}
                        {label}
                      </td>
                      <td class="n">{countText(n)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))}
      </div>
    </>
  );
}
