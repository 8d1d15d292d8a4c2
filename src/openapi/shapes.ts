import * as v from 'valibot';
import { PIXEL_TYPES } from '../resources/pixels.ts';
import { CONTACT_FIELDS, OVERLAY_POSITIONS, OVERLAY_TYPES } from '../resources/overlays.ts';
import { ITEM_KINDS } from '../routes/channels.ts';

/**
 * Response shapes of each row, keyed by row name. The table says how a record is shaped only in
 * code (`entry`, `single`, `created`, `updated` hooks), so the shapes are written here; the document
 * refuses to build when a row has a hook without its shape, and the contract test checks every
 * shape against real responses.
 */
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

const int = v.pipe(v.number(), v.integer());
const str = v.string();
const date = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/));
const day = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/));
const laravelTime = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/));
const counts = v.record(v.string(), v.string());
const target = (key: string) => v.array(v.strictObject({ [key]: str, link: str }));

/** The statistics of a link or QR code (`visitStats`): counts in the `top*` maps are strings. */
export const visitStatsShape = v.strictObject({
  clicks: int,
  uniqueClicks: int,
  topCountries: counts,
  topReferrers: counts,
  topBrowsers: counts,
  topOs: counts,
  socialCount: v.strictObject({ facebook: int, twitter: int, instagram: int, linkedin: int }),
});

/** A user as `publicUser` shows it (never the password or the key). */
export const userEntry = {
  id: int,
  email: str,
  username: str,
  avatar: str,
  status: v.picklist(['free', 'pro']),
  planid: v.nullable(int),
  expires: v.nullable(str),
  registered: date,
  admin: v.boolean(),
};

const campaignBody = { id: int, domain: str, name: str, public: v.boolean(), rotator: v.union([str, v.literal(false)]), list: str };
const channelBody = { id: int, name: str, description: str, color: str, starred: v.boolean() };
const linkDetails = {
  id: int,
  alias: str,
  shorturl: str,
  longurl: str,
  title: str,
  description: str,
  location: target('location'),
  device: target('device'),
  language: target('language'),
  expiry: v.nullable(date),
  password: v.boolean(),
  type: v.picklist(['direct', 'frame', 'splash', 'overlay']),
  pixels: v.array(int),
  campaign: v.nullable(int),
  channel: v.array(int),
  status: v.picklist(['public', 'private']),
  date,
};
const overlayDetails = {
  id: int,
  type: v.picklist(OVERLAY_TYPES),
  name: str,
  message: str,
  buttontext: str,
  buttonlink: str,
  textcolor: str,
  bgcolor: str,
  buttoncolor: str,
  position: v.picklist(OVERLAY_POSITIONS),
  fields: v.array(v.picklist(CONTACT_FIELDS)),
  email: str,
  date,
};

/** The response shapes of every row that has routes. */
export const ROW_SHAPES: Readonly<Record<string, RowShapes>> = {
  user: { entry: userEntry, created: { message: str, id: int, userid: int, apikey: str } },
  link: {
    entry: { id: int, alias: str, shorturl: str, longurl: str, title: str, description: str, clicks: int, uniqueclicks: int, domain: str, campaign: v.nullable(int), channel: v.array(int), date },
    single: { id: int, details: v.strictObject(linkDetails), data: visitStatsShape },
    created: { id: int, shorturl: str },
    updated: { id: int, shorturl: str },
  },
  qr: {
    entry: { id: int, link: str, scans: int, name: str, date },
    single: { details: v.strictObject({ id: int, name: str, link: str, scans: int, date }), data: visitStatsShape },
    created: { id: int, link: str },
  },
  pixel: { entry: { id: int, type: v.picklist(PIXEL_TYPES), name: str, tag: str, date } },
  campaign: { entry: { ...campaignBody, views: int }, created: campaignBody, updated: campaignBody },
  channel: { entry: channelBody, created: channelBody },
  bio: { entry: { id: int, name: str, alias: str, link: str, date }, created: { id: int, link: str } },
  domain: { entry: { id: int, domain: str, redirectroot: str, redirect404: str } },
  overlay: { entry: { id: int, type: v.picklist(OVERLAY_TYPES), name: str, date }, single: { data: v.strictObject(overlayDetails) } },
  splash: {
    entry: { id: int, name: str, date },
    single: { data: v.strictObject({ id: int, name: str, title: str, text: str, image: str, countdown: int, date }) },
  },
  website: {
    entry: {
      id: int,
      domain: str,
      privacy: v.picklist([0, 1, 2]),
      email: v.picklist([0, 1]),
      password: v.boolean(),
      exclude_bots: v.picklist([0, 1]),
      exclude_params: str,
      exclude_ips: str,
      favorite: v.boolean(),
      created_at: laravelTime,
      updated_at: laravelTime,
    },
  },
};

/** The account (`GET /api/account`): a public user without the admin flag. */
export const accountShape = v.strictObject((({ admin: _admin, ...rest }) => rest)(userEntry));

/** An item of a channel (`GET /api/channel/:id`). */
export const channelItemShape = v.strictObject({
  type: v.picklist(Object.keys(ITEM_KINDS) as [string, ...string[]]),
  id: int,
  title: str,
  preview: str,
  link: str,
  date: day,
});

/** A row of the analytics stats API. */
export const statRowShape = v.strictObject({ value: str, count: int });
