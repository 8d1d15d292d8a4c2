import * as v from 'valibot';
import type { Tally } from '../stats/counts.ts';
import type { Sighting } from '../stats/visitor-ledger.ts';
import { placeLabel } from '../geo/place.ts';
import type { Place } from '../geo/place.ts';
import { countryLabel } from '../visits/country.ts';
import { primaryLanguage } from '../visits/language.ts';
import { referrerLabel } from '../visits/referrer.ts';
import { sourceLabel } from '../visits/sources.ts';
import { agentOf } from '../visits/user-agent.ts';
import { stripQueryParams, utmCampaign } from '../visits/url-params.ts';
import { utmOf } from '../visits/utm.ts';
import { continentLabel } from './continents.ts';
import { EventProperties, propertyLabels } from './event-properties.ts';
import { linesOf } from './form-fields.ts';

const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));

/** The body the tracking script posts to /api/event (../shared/spec/compat-notes.md). */
export const TrackedEvent = v.object({
  page: v.pipe(text(2048), v.url('page must be a URL.')),
  referrer: v.optional(v.nullable(text(2048))),
  screen_resolution: v.optional(v.nullable(text(32))),
  event: v.optional(
    v.object({
      name: v.pipe(text(255), v.trim(), v.minLength(1, 'The event name cannot be empty.')),
      value: v.optional(v.nullable(v.union([v.number(), text(255)]))),
      unit: v.optional(v.nullable(text(64))),
      properties: v.optional(EventProperties),
    }),
  ),
});
/** A tracking event after validation. */
export type TrackedEvent = v.InferOutput<typeof TrackedEvent>;

/** What the request says about the visitor besides the body. */
export interface VisitHeaders {
  userAgent: string | undefined;
  acceptLanguage: string | undefined;
  /** Where the visitor is: the trusted country header, else the geo databases (Geolocator.locate). */
  place: Place;
}

/** The website settings a pageview is counted with. */
export interface CountingRules {
  domain: string;
  exclude_params: string;
}

const LABEL_MAX = 512;
const clip = (s: string) => (s.length > LABEL_MAX ? s.slice(0, LABEL_MAX) : s);

/** `1920x1080`, or 'Unknown' for anything else. */
export function resolutionLabel(raw: string | null | undefined): string {
  const m = /^\s*(\d{2,5})\s*[x×]\s*(\d{2,5})\s*$/i.exec(raw ?? '');
  return m ? `${Number(m[1])}x${Number(m[2])}` : 'Unknown';
}

/** The page a pageview counts for: its path and query without the website's excluded parameters (and utm_*), clipped. */
export function countedPage(event: TrackedEvent, rules: CountingRules): string {
  return clip(stripQueryParams(event.page, linesOf(rules.exclude_params)) || '/');
}

/**
 * What one pageview adds to its website's day. Pageviews, pages and hourly pageviews count every
 * time; the visit's own breakdowns (landing page, referrer, source, browser, OS, device, country,
 * continent, region, city, language, resolution, campaign, UTM tags) count once per visitor and
 * day, on their first pageview, so each of them sums to the visitors (but region, city, campaign
 * and the UTM tags, which leave out visits without one).
 */
export function pageviewTally(event: TrackedEvent, rules: CountingRules, headers: VisitHeaders, hour: string, seen: Sighting): Tally {
  const page = countedPage(event, rules);
  const labels: Tally['labels'] = { page, pageviews_hour: hour, visitors_hour: seen.newThisHour ? hour : null };
  if (seen.newToday) {
    const ua = agentOf(headers.userAgent).agent;
    const campaign = utmCampaign(event.page);
    const utm = utmOf(event.page);
    const referrer = referrerLabel(event.referrer ?? undefined, [rules.domain]);
    const country = headers.place.country ?? undefined;
    Object.assign(labels, {
      landing_page: page,
      referrer: clip(referrer),
      source: clip(sourceLabel(referrer, utm?.source, event.referrer ?? undefined)),
      browser: ua.browser,
      os: ua.os,
      device: ua.device,
      country: countryLabel(country),
      continent: continentLabel(country),
      region: placeLabel(headers.place, 'region'),
      city: placeLabel(headers.place, 'city'),
      language: primaryLanguage(headers.acceptLanguage) ?? 'Unknown',
      resolution: resolutionLabel(event.screen_resolution),
      campaign: campaign === null ? null : clip(campaign),
      utm_source: utm?.source ?? null,
      utm_medium: utm?.medium ?? null,
      utm_campaign: utm?.campaign ?? null,
      utm_term: utm?.term ?? null,
      utm_content: utm?.content ?? null,
    });
  }
  return { add: { pageviews: 1, visitors: seen.newToday ? 1 : 0 }, labels };
}

/** What a custom event adds: one more of its name, and of each property's value (values and units are not aggregated). */
export function customEventTally(event: NonNullable<TrackedEvent['event']>): Tally {
  const name = clip(event.name);
  return { labels: { event: name, ...propertyLabels(name, event.properties) } };
}
