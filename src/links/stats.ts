import type { Services } from '../resources/define.ts';
import { labelsOfDimension, totalOf } from '../stats/counts.ts';
import { topCounts } from '../visits/top.ts';

/** The statistics object of a link or QR code, as the API returns it. */
export interface VisitStats {
  clicks: number;
  uniqueClicks: number;
  topCountries: Record<string, string>;
  topReferrers: Record<string, string>;
  topBrowsers: Record<string, string>;
  topOs: Record<string, string>;
  socialCount: { facebook: number; twitter: number; instagram: number; linkedin: number };
}

/** The counter subject of a link's clicks, a QR code's scans or a file's downloads. */
export const subjectOf = (kind: 'link' | 'qr' | 'campaign' | 'file', id: number) => `${kind}:${id}`;

/** All-time clicks and unique clicks of some subjects, in one read (cheap: no top lists). */
export function clickTotals(s: Pick<Services, 'counters'>, subjects: readonly string[]): Promise<Map<string, { clicks: number; uniqueClicks: number }>> {
  return s.counters.totals(subjects, ['clicks', 'uniqueClicks']);
}

/** The statistics of a subject over all days: totals, top 10 per dimension (counts as strings), social referrers. */
export async function visitStats(s: Pick<Services, 'counters'>, subject: string): Promise<VisitStats> {
  const sum = await s.counters.sum(subject);
  const social = labelsOfDimension(sum, 'social');
  return {
    clicks: totalOf(sum, 'clicks'),
    uniqueClicks: totalOf(sum, 'uniqueClicks'),
    topCountries: topCounts(labelsOfDimension(sum, 'country')),
    topReferrers: topCounts(labelsOfDimension(sum, 'referrer')),
    topBrowsers: topCounts(labelsOfDimension(sum, 'browser')),
    topOs: topCounts(labelsOfDimension(sum, 'os')),
    socialCount: { facebook: social.facebook ?? 0, twitter: social.twitter ?? 0, instagram: social.instagram ?? 0, linkedin: social.linkedin ?? 0 },
  };
}
