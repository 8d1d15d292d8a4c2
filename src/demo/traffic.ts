import { createHash } from 'node:crypto';
import { customEventTally, pageviewTally } from '../analytics/visit-tally.ts';
import { websiteSubject } from '../analytics/website-subject.ts';
import type { Website } from '../analytics/websites.ts';
import { clickTally } from '../redirect/visit.ts';
import type { VisitInfo } from '../redirect/visit.ts';
import type { DailyCounters } from '../stats/daily-counters.ts';
import { parseAcceptLanguage } from '../visits/language.ts';
import { classifyUserAgent } from '../visits/user-agent.ts';
import { hourOf } from '../visits/visitor.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Uniform numbers in [0, 1), the same sequence for the same seed (mulberry32: fast, and plenty for made-up traffic). */
export function uniform(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32BE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

type Weighted<T> = readonly (readonly [T, number])[];

function pick<T>(next: () => number, table: Weighted<T>): T {
  const total = table.reduce((n, [, w]) => n + w, 0);
  let r = next() * total;
  for (const [value, w] of table) if ((r -= w) < 0) return value;
  return table[table.length - 1]![0];
}

const AGENTS: Weighted<string> = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 30],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 22],
  ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36', 16],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', 12],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0', 8],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', 6],
  ['Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 4],
  ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36', 2],
];

const COUNTRIES: Weighted<readonly [string, string]> = [
  [['US', 'en-US,en;q=0.9'], 30],
  [['DE', 'de-DE,de;q=0.9,en;q=0.6'], 12],
  [['GB', 'en-GB,en;q=0.9'], 10],
  [['FR', 'fr-FR,fr;q=0.9,en;q=0.5'], 8],
  [['IN', 'en-IN,hi;q=0.8'], 8],
  [['BR', 'pt-BR,pt;q=0.9'], 7],
  [['CA', 'en-CA,fr-CA;q=0.8'], 6],
  [['NL', 'nl-NL,nl;q=0.9,en;q=0.7'], 5],
  [['ES', 'es-ES,es;q=0.9'], 5],
  [['JP', 'ja-JP,ja;q=0.9'], 4],
  [['AU', 'en-AU,en;q=0.9'], 3],
  [['PL', 'pl-PL,pl;q=0.9'], 2],
];

const REFERRERS: Weighted<string | undefined> = [
  [undefined, 30],
  ['https://www.google.com/', 22],
  ['https://t.co/x7Yq2', 10],
  ['https://www.facebook.com/', 9],
  ['https://www.linkedin.com/feed/', 8],
  ['https://www.instagram.com/', 6],
  ['https://news.ycombinator.com/', 5],
  ['https://www.reddit.com/r/webdev/', 4],
  ['https://duckduckgo.com/', 3],
  ['https://www.bing.com/', 3],
];

const RESOLUTIONS: Weighted<string> = [
  ['1920x1080', 30],
  ['390x844', 20],
  ['1440x900', 12],
  ['412x915', 12],
  ['2560x1440', 8],
  ['1366x768', 8],
  ['820x1180', 4],
];

/** A visitor: an address (from a pool, so some come back), a browser, a country and its language. */
function visitor(next: () => number, pool: number): { ip: string; ua: string; country: string; language: string } {
  const n = Math.floor(next() * pool);
  const [country, language] = pick(next, COUNTRIES);
  return { ip: `198.51.${100 + (n >> 8)}.${n & 255}`, ua: pick(next, AGENTS), country, language };
}

/** How busy a day is: weekends quieter, a slow rise over the month, some noise. */
function dayFactor(next: () => number, dayStart: number, index: number, days: number): number {
  const weekday = new Date(dayStart).getUTCDay();
  const weekend = weekday === 0 || weekday === 6 ? 0.6 : 1;
  return weekend * (0.7 + (0.6 * index) / Math.max(1, days - 1)) * (0.75 + next() * 0.5);
}

const HOURS: Weighted<number> = Array.from({ length: 24 }, (_, h) => [h, h >= 8 && h <= 22 ? 3 + (h >= 12 && h <= 18 ? 2 : 0) : 1] as const);

/** Working hours are busier: an hour of the day, weighted. */
function busyHour(next: () => number): number {
  return pick(next, HOURS);
}

/** A click target of the demo: a subject, its owner and how many clicks a typical day brings. */
export interface ClickSubject {
  subjects: string[];
  owner: number;
  perDay: number;
}

/** A website of the demo, its pages and how many visitors a typical day brings. */
export interface SiteTraffic {
  website: Website;
  pages: readonly string[];
  perDay: number;
  events?: readonly string[];
}

/**
 * Feeds `days` days of believable traffic ending at `now` through the same tallies and counters
 * as real clicks and pageviews, day by day (the visitor ledger only looks forward).
 */
export function generateTraffic(counters: DailyCounters, seed: string, now: number, days: number, clicks: readonly ClickSubject[], sites: readonly SiteTraffic[], ownHost: string): void {
  const next = uniform(seed);
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  for (let index = 0; index < days; index++) {
    const dayStart = today - (days - 1 - index) * DAY_MS;
    const factor = dayFactor(next, dayStart, index, days);
    const at = () => Math.min(now, dayStart + busyHour(next) * HOUR_MS + Math.floor(next() * HOUR_MS));
    for (const target of clicks) {
      const count = Math.round(target.perDay * factor);
      for (let i = 0; i < count; i++) {
        const who = visitor(next, 10 + target.perDay * 3);
        const agent = classifyUserAgent(who.ua);
        const when = at();
        const visit: VisitInfo = { ip: who.ip, ua: who.ua, agent, bot: false, probe: false, referrer: pick(next, REFERRERS), place: { country: who.country, region: null, city: null }, utm: null, country: who.country, platform: agent.platform, languages: parseAcceptLanguage(who.language) };
        for (const subject of target.subjects) {
          const seen = counters.sight(subject, visit.ip, visit.ua, when);
          counters.record(subject, clickTally(visit, seen.newToday, [ownHost]), { owner: target.owner, at: when });
        }
      }
    }
    // Sessions stay inside their day: the visitor ledger only looks forward.
    const last = Math.min(now, dayStart + DAY_MS - 1);
    for (const site of sites) siteDay(counters, next, site, Math.round(site.perDay * factor), at, last);
  }
}

function siteDay(counters: DailyCounters, next: () => number, site: SiteTraffic, visitors: number, at: () => number, last: number): void {
  const subject = websiteSubject(site.website.id);
  const meta = (when: number) => ({ owner: site.website.userId, at: when });
  for (let v = 0; v < visitors; v++) {
    const who = visitor(next, 20 + site.perDay * 4);
    const headers = { userAgent: who.ua, acceptLanguage: who.language, place: { country: who.country, region: null, city: null } };
    const resolution = pick(next, RESOLUTIONS);
    let when = at();
    let referrer = pick(next, REFERRERS);
    const views = 1 + Math.floor(next() * next() * 5);
    for (let p = 0; p < views; p++) {
      const path = p === 0 && next() < 0.45 ? site.pages[0]! : site.pages[Math.floor(next() * site.pages.length)]!;
      const campaign = p === 0 && next() < 0.12 ? '?utm_source=newsletter&utm_campaign=spring-sale' : '';
      const page = `https://${site.website.domain}${path}${campaign}`;
      const seen = counters.sight(subject, who.ip, who.ua, when);
      counters.record(subject, pageviewTally({ page, referrer, screen_resolution: resolution }, site.website, headers, hourOf(when).slice(11), seen), meta(when));
      referrer = page;
      when = Math.min(last, when + 20_000 + Math.floor(next() * 120_000));
    }
    if (site.events && next() < 0.08) counters.record(subject, customEventTally({ name: site.events[Math.floor(next() * site.events.length)]! }), meta(when));
  }
}
