import type { DayRange } from './stats-range.ts';

/** The query parameters the stats page reads; links keep these and nothing else a request sent. */
export const PAGE_PARAMS = ['period', 'from', 'to', 'pages', 'sources', 'utm', 'locations', 'devices', 'event', 'property'] as const;

/** The page's state as its query says it: one value per parameter it reads. */
export type PageQuery = Partial<Record<(typeof PAGE_PARAMS)[number], string>>;

/** The parameters of a request's query that the page reads (others are dropped from every link). */
export function pageQuery(query: Record<string, string>): PageQuery {
  const out: PageQuery = {};
  for (const name of PAGE_PARAMS) if (query[name] !== undefined && query[name] !== '') out[name] = query[name];
  return out;
}

const withQuery = (path: string, params: Record<string, string | undefined>): string => {
  const q = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  return q === '' ? path : `${path}?${q}`;
};

/** The stats page of `domain` with `query` changed by `changes` (undefined removes a parameter). Not HTML-escaped. */
export function pageHref(domain: string, query: PageQuery, changes: PageQuery | Record<string, undefined> = {}): string {
  return withQuery(`/stats/${domain}`, { ...query, ...changes });
}

/** The CSV download of one stats name over a range, through the page's access rules. Not HTML-escaped. */
export function csvHref(domain: string, name: string, range: DayRange, extra: { event?: string; property?: string } = {}): string {
  return withQuery(`/stats/${domain}/csv`, { name, from: range.from, to: range.to, ...extra });
}

/** The zip of the page's statistics over a range. Not HTML-escaped. */
export function exportHref(domain: string, range: DayRange): string {
  return withQuery(`/stats/${domain}/export`, { from: range.from, to: range.to });
}

/** Where the page's script reads the realtime visitors. */
export const realtimeHref = (domain: string): string => `/stats/${domain}/realtime`;
