import type { Services } from '../resources/define.ts';
import { labelsOfDimension, totalOf } from '../stats/counts.ts';
import { socialNetworkOf } from '../visits/referrer.ts';
import { topCounts } from '../visits/top.ts';
import { UTM_PARTS } from '../visits/utm.ts';
import type { Utm } from '../visits/utm.ts';

/** The statistics object of a link or QR code, as the API returns it. */
export interface VisitStats<T = string> {
  clicks: number;
  uniqueClicks: number;
  topCountries: Record<string, T>;
  topReferrers: Record<string, T>;
  topBrowsers: Record<string, T>;
  topOs: Record<string, T>;
  socialCount: { facebook: number; twitter: number; instagram: number; linkedin: number };
  /** Ours, beside the real product's fields: referrers by named source (Google, X/Twitter, …), regions and cities (`US:California`), UTM tags of the short URL. */
  topSources: Record<string, T>;
  topRegions: Record<string, T>;
  topCities: Record<string, T>;
  utm: { [P in keyof Utm]: Record<string, T> };
}

/** The counter subject of a link's clicks, a QR code's scans or a file's downloads. */
export const subjectOf = (kind: 'link' | 'qr' | 'campaign' | 'file', id: number) => `${kind}:${id}`;

/** All-time clicks and unique clicks of some subjects, in one read (cheap: no top lists). */
export function clickTotals(s: Pick<Services, 'counters'>, subjects: readonly string[]): Promise<Map<string, { clicks: number; uniqueClicks: number }>> {
  return s.counters.totals(subjects, ['clicks', 'uniqueClicks']);
}

/**
 * The statistics of a subject over all days: totals, top 10 per dimension, social referrers.
 * Counts in the top lists are strings (QR codes: the reference) or, with `as` Number, integers (links:
 * the real product). Referrers from the social networks are counted in `socialCount`, not in
 * `topReferrers`; `topSources` counts every click, social networks included, by named source.
 */
export async function visitStats<T = string>(s: Pick<Services, 'counters'>, subject: string, as?: (count: number) => T): Promise<VisitStats<T>> {
  const sum = await s.counters.sum(subject);
  const social = labelsOfDimension(sum, 'social');
  const referrers = Object.entries(labelsOfDimension(sum, 'referrer')).filter(([host]) => socialNetworkOf(host) === null);
  return {
    clicks: totalOf(sum, 'clicks'),
    uniqueClicks: totalOf(sum, 'uniqueClicks'),
    topCountries: topCounts(labelsOfDimension(sum, 'country'), 10, as),
    topReferrers: topCounts(Object.fromEntries(referrers), 10, as),
    topBrowsers: topCounts(labelsOfDimension(sum, 'browser'), 10, as),
    topOs: topCounts(labelsOfDimension(sum, 'os'), 10, as),
    socialCount: { facebook: social.facebook ?? 0, twitter: social.twitter ?? 0, instagram: social.instagram ?? 0, linkedin: social.linkedin ?? 0 },
    topSources: topCounts(labelsOfDimension(sum, 'source'), 10, as),
    topRegions: topCounts(labelsOfDimension(sum, 'region'), 10, as),
    topCities: topCounts(labelsOfDimension(sum, 'city'), 10, as),
    utm: Object.fromEntries(UTM_PARTS.map((part) => [part, topCounts(labelsOfDimension(sum, `utm_${part}`), 10, as)])) as VisitStats<T>['utm'],
  };
}
