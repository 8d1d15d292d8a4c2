import * as v from 'valibot';

/** A row's response shapes, for the OpenAPI document and the contract test (Valibot entries). */
export interface RowShapes {
  /** A record in lists (`row.entry`). */
  entry: v.ObjectEntries;
  /** The body of `row.single`, without `error`; absent: `{data: entry}`. */
  single?: v.ObjectEntries;
  /** The body of `row.created`, without `error`; absent: `{id}`. */
  created?: v.ObjectEntries;
  /** The body of `row.updated`, without `error`; absent: `{message}`. */
  updated?: v.ObjectEntries;
}

/** Building blocks of response shapes. */
export const int = v.pipe(v.number(), v.integer());
export const str = v.string();
export const date = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/));
export const day = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/));
export const laravelTime = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/));

const statsShape = (count: v.GenericSchema) =>
  v.strictObject({
    clicks: int,
    uniqueClicks: int,
    topCountries: v.record(v.string(), count),
    topReferrers: v.record(v.string(), count),
    topBrowsers: v.record(v.string(), count),
    topOs: v.record(v.string(), count),
    socialCount: v.strictObject({ facebook: int, twitter: int, instagram: int, linkedin: int }),
    topSources: v.record(v.string(), count),
    topRegions: v.record(v.string(), count),
    topCities: v.record(v.string(), count),
    utm: v.strictObject({ source: v.record(v.string(), count), medium: v.record(v.string(), count), campaign: v.record(v.string(), count), term: v.record(v.string(), count), content: v.record(v.string(), count) }),
  });

/** The statistics of a QR code (`visitStats`): counts in the `top*` maps are strings, as the reference has them. */
export const visitStatsShape = statsShape(v.string());

/** The statistics of a link: counts in the `top*` maps are integers, as the real product answers. */
export const linkStatsShape = statsShape(int);
