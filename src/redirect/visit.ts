import type { Context } from 'hono';
import { clientIp } from '../http/client-ip.ts';
import type { Services } from '../resources/define.ts';
import type { Tally } from '../stats/counts.ts';
import { placeLabel } from '../geo/place.ts';
import type { Place } from '../geo/place.ts';
import { countryName } from '../visits/country.ts';
import { parseAcceptLanguage } from '../visits/language.ts';
import { referrerLabel, socialNetworkOf } from '../visits/referrer.ts';
import { sourceLabel } from '../visits/sources.ts';
import { utmOf } from '../visits/utm.ts';
import type { Utm } from '../visits/utm.ts';
import { agentOf } from '../visits/user-agent.ts';
import type { UserAgentInfo } from '../visits/user-agent.ts';
import type { Visitor } from './target.ts';

/** Everything a redirect learns about its visitor from the request. */
export interface VisitInfo extends Visitor {
  ip: string;
  ua: string;
  agent: UserAgentInfo;
  bot: boolean;
  /**
   * A HEAD request: answered like the GET, never counted. Link previewers and mail scanners send
   * them with browser user agents (X sends three per shared link), so no visitor is behind one.
   */
  probe: boolean;
  referrer: string | undefined;
  /** Country (the `country` targeting sees), region and city. */
  place: Place;
  /** The UTM tags of the short URL as it was opened (`/abc?utm_source=x`), or null. */
  utm: Utm | null;
}

/** Reads the visitor from a request: the place from the trusted header or the IP address (s.geo), platform from the user agent, UTM tags from the URL. */
export function visitOf(c: Context, s: Services): VisitInfo {
  const ua = c.req.header('user-agent') ?? '';
  const { agent, bot } = agentOf(ua);
  const ip = clientIp(c, s.config.trustProxy);
  const place = s.geo.locate(ip, c.req.header(s.config.countryHeader));
  return {
    ip,
    ua,
    agent,
    bot,
    probe: c.req.method === 'HEAD',
    referrer: c.req.header('referer'),
    place,
    utm: utmOf(c.req.url),
    country: place.country,
    platform: agent.platform,
    languages: parseAcceptLanguage(c.req.header('accept-language')),
  };
}

/** What one counted click adds to a link's (or QR code's) daily counters. */
export function clickTally(v: VisitInfo, unique: boolean, ownHosts: string[]): Tally {
  const referrer = referrerLabel(v.referrer, ownHosts);
  return {
    add: { clicks: 1, uniqueClicks: unique ? 1 : 0 },
    labels: {
      country: countryName(v.country ?? undefined),
      referrer,
      browser: v.agent.browser,
      os: v.agent.os,
      device: v.agent.device,
      language: v.languages[0]?.split('-')[0] ?? null,
      social: socialNetworkOf(referrer),
      region: placeLabel(v.place, 'region'),
      city: placeLabel(v.place, 'city'),
      source: sourceLabel(referrer, v.utm?.source, v.referrer),
      utm_source: v.utm?.source,
      utm_medium: v.utm?.medium,
      utm_campaign: v.utm?.campaign,
      utm_term: v.utm?.term,
      utm_content: v.utm?.content,
    },
  };
}

/** Counts a visit of `subject` ('link:7', 'qr:3') for its owner, unless it is a bot's or a HEAD request; never waits for the disk. */
export function recordClick(s: Services, subject: string, owner: number, v: VisitInfo): void {
  if (v.bot || v.probe) return;
  s.counters.recordVisit(subject, v.ip, v.ua, (seen) => clickTally(v, seen.newToday, ownHosts(s.config.baseUrl)), { owner });
}

// The server's own host, parsed once per BASE_URL rather than on every click.
let own = { baseUrl: '', hosts: [] as string[] };

function ownHosts(baseUrl: string): string[] {
  if (own.baseUrl !== baseUrl) own = { baseUrl, hosts: [new URL(baseUrl).hostname] };
  return own.hosts;
}
