import { mergeCountsInTurns } from '../stats/counts.ts';
import type { StoredDays } from './stats-series.ts';
import { chartSeries, headlineOf } from './stats-series.ts';
import type { PageQuery } from './stats-links.ts';
import { PANELS, chosenTab, eventsPanel, panelRows } from './stats-panels.ts';
import { previousRange, statsRange } from './stats-range.ts';
import type { StatsView } from './stats-page.ts';
import { PROPERTY_NAME_MAX } from './event-properties.ts';
import { websiteSubject } from './website-subject.ts';
import { propertyOf } from '../store/property-dimensions.ts';

/** What the stats page reads its numbers from: the statistics counters. */
export interface StatsSource {
  days(subject: string, from: string, to: string): Promise<StoredDays>;
  realtime(subject: string): Promise<{ visitors: number }>;
}

/** What the page says besides the numbers. */
export interface ViewSettings {
  nowMs: number;
  /** STATS_HOURLY_DAYS. */
  hourlyDays: number;
  /** GEOIP: the DB-IP credit is shown. */
  geoCredit: boolean;
}

// Longer names were never counted (the tracker refuses them): such a query shows the events list.
const EVENT_MAX = 255;

/**
 * Everything the stats page of website `id` shows for `query`: the range and the one before it
 * (read together, one read), the chart, the headline figures, each panel's chosen tab, the events
 * panel and the realtime visitors.
 */
export async function statsView(source: StatsSource, id: number, domain: string, query: PageQuery, settings: ViewSettings): Promise<StatsView> {
  const subject = websiteSubject(id);
  const range = statsRange(query, settings.nowMs);
  const previous = previousRange(range);
  const [all, live] = await Promise.all([source.days(subject, previous.from, range.to), source.realtime(subject)]);
  const inRange = all.filter((d) => d.day >= range.from && d.day <= range.to);
  const before = all.filter((d) => d.day >= previous.from && d.day <= previous.to);
  const event = query.event !== undefined && query.event.length <= EVENT_MAX ? query.event : undefined;
  const property = event !== undefined && query.property !== undefined && query.property.length <= PROPERTY_NAME_MAX ? query.property : undefined;
  // The range's days summed once, only the dimensions shown (each panel's chosen tab, the events and
  // the chosen event's properties): each panel then reads one set of counts, not a year of them.
  const tabs = PANELS.map((spec) => ({ spec, tab: chosenTab(spec, query[spec.param]) }));
  const shown = new Set<string>([...tabs.map((t) => t.tab.metric), 'event']);
  const keep = (dimension: string) => shown.has(dimension) || (event !== undefined && propertyOf(dimension)?.event === event);
  const summed = [{ day: range.to, counts: await mergeCountsInTurns(inRange.map((d) => d.counts), undefined, keep) }];
  return {
    domain,
    query,
    range,
    previous,
    headline: headlineOf(inRange),
    previousHeadline: headlineOf(before),
    series: chartSeries(inRange, range, settings.nowMs),
    panels: tabs.map(({ spec, tab }) => ({ spec, tab, rows: panelRows(summed, tab.metric) })),
    events: eventsPanel(summed, event, property),
    realtime: live.visitors,
    hourlyDays: settings.hourlyDays,
    geoCredit: settings.geoCredit,
  };
}
