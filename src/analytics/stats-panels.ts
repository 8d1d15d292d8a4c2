import { propertyRows } from './event-properties.ts';
import { BY_DATE, metricRows, topLabels, topRows } from './metrics.ts';
import { labelsOfDimension } from '../stats/counts.ts';
import type { Metric, StatRow } from './metrics.ts';
import type { StoredDays } from './stats-series.ts';

/** What one table of the stats page counts, said in its header. */
export type TableUnit = 'Pageviews' | 'Visitors' | 'Events';

/** One tab of a panel: the stats name it lists, what the tab and the table's heading call it, and what its numbers count. */
export interface PanelTab {
  metric: Metric;
  /** The tab's link text ("Referrers"). */
  tab: string;
  /** The panel's heading when the tab is chosen. */
  title: string;
  /** The first column's header. */
  label: string;
  unit: TableUnit;
}

/** A panel of the stats page: the query parameter that picks its tab, and its tabs (the first is the default). */
export interface PanelSpec {
  param: 'pages' | 'sources' | 'utm' | 'locations' | 'devices';
  /** What the tab list is called, for screen readers. */
  name: string;
  tabs: readonly [PanelTab, ...PanelTab[]];
}

const tab = (metric: Metric, tabText: string, title: string, label: string, unit: TableUnit): PanelTab => ({ metric, tab: tabText, title, label, unit });

// Pages count every pageview; the visit's breakdowns count each visitor once a day (see
// pageviewTally, where UTM tags, regions and cities leave out visits without one).
/** The stats page's panels with tabs, in page order; the events panel (eventsPanel) comes after them. */
export const PANELS: readonly PanelSpec[] = [
  { param: 'pages', name: 'Pages', tabs: [tab('page', 'Pages', 'Pages', 'Page', 'Pageviews'), tab('landing_page', 'Landing pages', 'Landing pages', 'Landing page', 'Visitors')] },
  { param: 'sources', name: 'Sources', tabs: [tab('source', 'Sources', 'Sources', 'Source', 'Visitors'), tab('referrer', 'Referrers', 'Referrers', 'Referrer', 'Visitors')] },
  {
    param: 'utm',
    name: 'Campaigns (UTM)',
    tabs: [
      tab('utm_source', 'Source', 'UTM sources', 'Source', 'Visitors'),
      tab('utm_medium', 'Medium', 'UTM mediums', 'Medium', 'Visitors'),
      tab('utm_campaign', 'Campaign', 'UTM campaigns', 'Campaign', 'Visitors'),
      tab('utm_term', 'Term', 'UTM terms', 'Term', 'Visitors'),
      tab('utm_content', 'Content', 'UTM contents', 'Content', 'Visitors'),
    ],
  },
  { param: 'locations', name: 'Locations', tabs: [tab('country', 'Countries', 'Countries', 'Country', 'Visitors'), tab('region', 'Regions', 'Regions', 'Region', 'Visitors'), tab('city', 'Cities', 'Cities', 'City', 'Visitors')] },
  { param: 'devices', name: 'Devices', tabs: [tab('browser', 'Browsers', 'Browsers', 'Browser', 'Visitors'), tab('os', 'Operating systems', 'Operating systems', 'Operating system', 'Visitors'), tab('device', 'Devices', 'Devices', 'Device', 'Visitors')] },
];

/** The stats names the page lists, so the ones its CSV links may ask for (event_property with its event). */
export const PAGE_METRICS: readonly Metric[] = [...PANELS.flatMap((p) => p.tabs.map((t) => t.metric)), 'event', 'event_property'];

/** Rows a panel shows; the CSV link has them all. */
export const PANEL_ROWS = 10;

/** The tab of `spec` a query value picks: the one of that stats name, else the first. */
export function chosenTab(spec: PanelSpec, value: string | undefined): PanelTab {
  return spec.tabs.find((t) => t.metric === value) ?? spec.tabs[0];
}

/** The top rows of a panel's tab over some days. */
export function panelRows(days: StoredDays, metric: Metric): StatRow[] {
  // One summed day (the page's): its labels as they are, no row made for those past the top.
  if (days.length === 1 && !BY_DATE.has(metric)) return topLabels(labelsOfDimension(days[0]!.counts, metric), PANEL_ROWS);
  return topRows(metricRows(days, metric), PANEL_ROWS);
}

/** Where the events panel is: every event, one event's property names, or one property's values. */
export interface EventsPanel {
  event?: string;
  property?: string;
  rows: StatRow[];
  /** The first column's header. */
  label: string;
}

/**
 * The events panel: the custom events by count; with `event`, how often each of its properties came
 * with it; with `property` too, that property's values.
 */
export function eventsPanel(days: StoredDays, event: string | undefined, property: string | undefined): EventsPanel {
  if (event === undefined) return { rows: panelRows(days, 'event'), label: 'Event' };
  const rows = topRows(propertyRows(days, event, property), PANEL_ROWS);
  return property === undefined ? { event, rows, label: 'Property' } : { event, property, rows, label: property };
}

/** The flag emoji of a two-letter country code (its regional indicator letters), or '' for anything else. */
export function flagOf(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) return '';
  return String.fromCodePoint(...[...code].map((ch) => 0x1f1e6 + ch.charCodeAt(0) - 65));
}

/**
 * A label as a person reads it: location labels (`US:United States`, `US:California`) as their
 * name and the country's flag; any other as it is.
 */
export function shownLabel(metric: Metric, value: string): { flag: string; text: string } {
  const located = metric === 'country' || metric === 'region' || metric === 'city' ? /^([A-Z]{2}):(.*)$/s.exec(value) : null;
  return located ? { flag: flagOf(located[1]!), text: located[2]! } : { flag: '', text: value };
}
