import { countText } from '../html/count-text.ts';
import { NARROW, WIDE, chartTable, escapeHtml, lineChart } from './chart.ts';
import type { StatRow } from './metrics.ts';
import { csvHref, exportHref, pageHref } from './stats-links.ts';
import type { PageQuery } from './stats-links.ts';
import { shownLabel } from './stats-panels.ts';
import type { EventsPanel, PanelSpec, PanelTab } from './stats-panels.ts';
import { PERIODS, PERIOD_NAMES } from './stats-range.ts';
import type { DayRange, StatsRange } from './stats-range.ts';
import { percentChange } from './stats-series.ts';
import type { Headline, Series } from './stats-series.ts';

const PANEL_PARAMS = ['pages', 'sources', 'utm', 'locations', 'devices', 'event', 'property'] as const;

/** The preset links, the custom range form (keeping the panels' tabs), the range in words and the zip link. */
export function rangeCard(domain: string, query: PageQuery, range: StatsRange): string {
  const kept = Object.fromEntries(PANEL_PARAMS.map((p) => [p, query[p]]));
  const presets = PERIODS.filter((p) => p !== 'custom')
    .map((p) => `<a href="${escapeHtml(pageHref(domain, { ...kept, period: p }))}"${range.period === p ? ' aria-current="page"' : ''}>${PERIOD_NAMES[p]}</a>`)
    .join('');
  const hidden = PANEL_PARAMS.filter((p) => query[p] !== undefined)
    .map((p) => `<input type="hidden" name="${p}" value="${escapeHtml(query[p]!)}">`)
    .join('');
  const d = escapeHtml(domain);
  const shown = range.from === range.to ? range.from : `${range.from} to ${range.to}`;
  return `<section class="card" aria-label="Date range"><nav class="periods" aria-label="Date range presets">${presets}</nav>
<form method="get" action="/stats/${d}"><input type="hidden" name="period" value="custom">${hidden}<label>From<input type="date" name="from" value="${escapeHtml(range.from)}" required></label><label>To<input type="date" name="to" value="${escapeHtml(range.to)}" required></label><button type="submit">Show</button></form>
<div class="actions"><span><b>${PERIOD_NAMES[range.period]}</b>: ${escapeHtml(shown)}. Days are UTC days (midnight to midnight UTC).</span><a href="${escapeHtml(exportHref(domain, range))}">Export all (zip)</a></div></section>`;
}

/** One headline figure with its change on the previous period ("↑ 20%"), or a dash when there is nothing to compare with. */
function figure(name: string, now: number | null, before: number | null, text: (n: number) => string): string {
  const change = percentChange(now, before);
  const changed =
    change === null
      ? '<span class="change none">–<span class="sr"> no previous figure to compare with</span></span>'
      : `<span class="change ${change > 0 ? 'up' : change < 0 ? 'down' : 'same'}"><span aria-hidden="true">${change > 0 ? '↑' : change < 0 ? '↓' : '='}</span> ${countText(Math.abs(change))}%<span class="sr"> ${change > 0 ? 'more' : change < 0 ? 'less' : 'the same'} than the previous period</span></span>`;
  return `<div class="figure"><span class="name">${name}</span><b>${now === null ? '–' : text(now)}</b>${changed}</div>`;
}

/** What the chart's points are, for its title and its table's first column. */
const POINT = { hour: ['per hour', 'Hour (UTC)'], day: ['per day', 'Day'], month: ['per month', 'Month'] } as const;

/** The headline figures with their changes, the chart (hourly, daily or monthly) and its table. */
export function totalsCard(domain: string, now: Headline, before: Headline, previous: DayRange, series: Series, hourlyDays: number): string {
  const lines = [
    { name: 'pageviews', color: '#0969da', values: series.pageviews },
    { name: 'visitors', color: '#1f883d', values: series.visitors },
  ];
  const [per, column] = POINT[series.interval];
  const title = `Pageviews and visitors of ${domain} ${per}`;
  const peak = Math.max(0, ...series.pageviews);
  const desc = `${countText(now.pageviews)} pageviews and ${countText(now.visitors)} visitors from ${series.labels[0] ?? ''} to ${series.labels.at(-1) ?? ''}; at most ${countText(peak)} pageviews ${per.replace('per ', 'in one ')}.`;
  const chart = lineChart(series.labels, lines, title, WIDE, desc).replace('class="chart"', 'class="chart wide"') + lineChart(series.labels, lines, title, NARROW, desc).replace('class="chart"', 'class="chart narrow"');
  // Retention thins days past STATS_HOURLY_DAYS (0: never); imported days may have come without hours.
  const kept = hourlyDays > 0 ? ` (hourly detail is kept for the last ${countText(hourlyDays)} days)` : '';
  const gone = series.hoursGone ? `<p class="muted">This day has no hourly detail${kept}: the chart shows the day's totals.</p>` : '';
  const compared = previous.from === previous.to ? previous.from : `${previous.from} to ${previous.to}`;
  return `<section class="card" aria-label="Totals"><div class="totals">${figure('Visitors', now.visitors, before.visitors, countText)}${figure('Pageviews', now.pageviews, before.pageviews, countText)}${figure('Views per visit', now.viewsPerVisit, before.viewsPerVisit, countText)}</div>
<p class="muted">A visitor counts once a day; views per visit are pageviews per visitor and day. Changes are on the previous period, ${escapeHtml(compared)}.</p>${gone}${chart}${chartTable(series.labels, lines, column)}</section>`;
}

/** A table of rows under its column headers; `cell` draws a row's label (already escaped). */
function rowsTable(label: string, unit: string, rows: readonly StatRow[], cell: (row: StatRow) => string): string {
  const body = rows.length === 0 ? '<tr><td colspan="2">No data</td></tr>' : rows.map((r) => `<tr><td>${cell(r)}</td><td class="n">${countText(r.count)}</td></tr>`).join('');
  return `<table><thead><tr><th>${escapeHtml(label)}</th><th class="n">${unit}</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** A panel's heading and its CSV link (all rows of what it shows, through the page's access rules). */
function panelHead(id: string, title: string, csv: string): string {
  return `<div class="head"><h2 id="${id}">${escapeHtml(title)}</h2><a href="${escapeHtml(csv)}">CSV<span class="sr"> of ${escapeHtml(title)}</span></a></div>`;
}

/** A panel with tabs: the chosen tab's top rows, its CSV link, and links to the other tabs. */
export function panelCard(domain: string, query: PageQuery, range: DayRange, spec: PanelSpec, chosen: PanelTab, rows: readonly StatRow[]): string {
  const tabs =
    spec.tabs.length < 2
      ? ''
      : `<nav class="tabs" aria-label="${escapeHtml(spec.name)}">${spec.tabs
          .map((t) => `<a href="${escapeHtml(pageHref(domain, query, { [spec.param]: t.metric }))}"${t === chosen ? ' aria-current="true"' : ''}>${escapeHtml(t.tab)}</a>`)
          .join('')}</nav>`;
  const cell = (r: StatRow) => {
    const { flag, text } = shownLabel(chosen.metric, r.value);
    return flag === '' ? escapeHtml(text) : `<span aria-hidden="true">${flag}</span> <span>${escapeHtml(text)}</span>`;
  };
  const id = `panel-${spec.param}`;
  return `<section class="card" aria-labelledby="${id}">${panelHead(id, chosen.title, csvHref(domain, chosen.metric, range))}${tabs}${rowsTable(chosen.label, chosen.unit, rows, cell)}</section>`;
}

/** The events panel: events, one event's properties, or one property's values, each a link one level down, with a way back up. */
export function eventsCard(domain: string, query: PageQuery, range: DayRange, panel: EventsPanel): string {
  const up = (changes: PageQuery | Record<string, undefined>, text: string) => `<a href="${escapeHtml(pageHref(domain, query, changes))}">${escapeHtml(text)}</a>`;
  let title = 'Events';
  let crumbs = '';
  let csv = csvHref(domain, 'event', range);
  let cell = (r: StatRow) => up({ event: r.value, property: undefined }, r.value);
  if (panel.event !== undefined) {
    title = panel.property === undefined ? `Properties of ${panel.event}` : `${panel.property} of ${panel.event}`;
    csv = csvHref(domain, 'event_property', range, { event: panel.event, ...(panel.property === undefined ? {} : { property: panel.property }) });
    crumbs = `<p class="crumbs">${up({ event: undefined, property: undefined }, 'All events')} › ${
      panel.property === undefined ? escapeHtml(panel.event) : `${up({ property: undefined }, panel.event)} › ${escapeHtml(panel.property)}`
    }</p>`;
    cell = panel.property === undefined ? (r) => up({ property: r.value }, r.value) : (r) => escapeHtml(r.value);
  }
  return `<section class="card" aria-labelledby="panel-events">${panelHead('panel-events', title, csv)}${crumbs}${rowsTable(panel.label, 'Events', panel.rows, cell)}</section>`;
}
